/**
 * The sandbox's vtgate stand-in: {@link io.pointsman.sandbox.router.Router} follows the topology in
 * etcd (cell SrvVSchema and SrvKeyspace, Shard and Tablet records), routes each statement by
 * routing rules and the {@code hash} vindex to a shard primary, and buffers statements that the
 * topology or the primary holds back while traffic is switched.
 */
package io.pointsman.sandbox.router;
