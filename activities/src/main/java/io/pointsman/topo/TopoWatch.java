package io.pointsman.topo;

/** A running watch of one record; closing it stops delivery. */
public interface TopoWatch extends AutoCloseable {
  @Override
  void close();
}
