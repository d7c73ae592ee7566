package io.pointsman.api.request;

import io.pointsman.api.names.Names;
import java.util.List;

/**
 * Fields named and defaulted as vtctldclient's flags that pointsman cannot act on when they are set:
 * read, so that a request carrying them at their default decodes, and refused with the reason when
 * set, before anything starts.
 */
final class VitessOnlyFields {
  private VitessOnlyFields() {}

  /** {@code shards} (vtctldclient's {@code --shards}): must be empty. */
  static void shards(RequestFields f) {
    List<String> shards = f.stringList("shards", List.of(), Names::shard);
    if (!shards.isEmpty()) {
      throw f.fail("shards", "cannot be honoured (" + RequestFields.clip(String.join(",", shards)) + "): pointsman "
          + "acts on every shard of a workflow at once; acting on a subset of shards, as vtctldclient does for "
          + "partial MoveTables, is not supported (and partial MoveTables workflows are refused)");
    }
  }

  /** {@code force} (vtctldclient's {@code --force} of SwitchTraffic and ReverseTraffic): must be false. */
  static void force(RequestFields f) {
    if (f.bool("force", false)) {
      throw f.fail("force", "cannot be honoured: Vitess's --force lets a switch go on when reading the source "
          + "keyspace's journals fails and when some tablets cannot be refreshed after their denied tables change; "
          + "pointsman does not go on past either, so it has no forced mode");
    }
  }
}
