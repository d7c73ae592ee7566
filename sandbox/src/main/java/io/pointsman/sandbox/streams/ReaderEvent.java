package io.pointsman.sandbox.streams;

/** What a {@link BinlogReader} hands its worker, in binlog order: transactions, then its end. */
sealed interface ReaderEvent permits SourceTransaction, ReaderEvent.Ended {
  /** The reader stopped; {@code cause} is null when it was closed, else why the stream broke. */
  record Ended(Throwable cause) implements ReaderEvent {}
}
