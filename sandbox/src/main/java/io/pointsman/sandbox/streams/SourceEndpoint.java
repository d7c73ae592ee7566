package io.pointsman.sandbox.streams;

/** Where a stream reads from: the source shard primary's MySQL and the database it serves. */
record SourceEndpoint(String host, int port, String db) {
  @Override
  public String toString() {
    return host + ":" + port + "/" + db;
  }
}
