package io.pointsman.e2e;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The reads of a test's etcd that the e2e snapshots and checks share. */
public final class EtcdReads {
  private EtcdReads() {}

  /** Every key under {@code prefix} now, with its value and revisions, in key order. */
  public static List<KeyValue> under(Client etcd, String prefix) throws Exception {
    return etcd.getKVClient().get(ByteSequence.from(prefix, StandardCharsets.UTF_8),
        GetOption.builder().isPrefix(true).build()).get(30, TimeUnit.SECONDS).getKvs();
  }
}
