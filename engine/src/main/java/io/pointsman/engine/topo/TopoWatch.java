package io.pointsman.engine.topo;

/** A running watch of one record; closing it stops delivery. */
public interface TopoWatch extends AutoCloseable {
  @Override
  void close();
}
