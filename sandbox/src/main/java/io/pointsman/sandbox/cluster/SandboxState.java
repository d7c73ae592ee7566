package io.pointsman.sandbox.cluster;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a sandbox left running, as recorded in its data folder so another process (the CLI's
 * {@code down} and {@code status}) can find and stop it: the topology's whereabouts and every
 * server process the sandbox started. Servers it only reused are not listed: they are not its to
 * stop.
 *
 * @param etcdEndpoint the etcd holding the topology
 * @param globalRoot the topology's global root
 * @param cellRootPrefix the prefix of cell roots
 * @param cell the sandbox's cell
 * @param mysqlUser the account created on every primary (never its password)
 * @param processes the servers started by the sandbox
 */
public record SandboxState(
    String etcdEndpoint, String globalRoot, String cellRootPrefix, String cell, String mysqlUser,
    List<ManagedProcess> processes) {
  public SandboxState {
    Objects.requireNonNull(etcdEndpoint, "etcdEndpoint");
    processes = processes == null ? List.of() : List.copyOf(processes);
  }

  /** The kind of server. */
  public enum Kind {
    ETCD, MARIADB
  }

  /**
   * A server the sandbox started.
   *
   * @param name {@code etcd} or the tablet alias of a primary
   * @param kind what it is
   * @param pid its process id
   * @param port its (client) port
   * @param folder its folder, which its command line names; a PID without it is not ours any more
   */
  public record ManagedProcess(String name, Kind kind, long pid, int port, String folder) {
    public ManagedProcess {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(folder, "folder");
    }

    /** Whether its PID still runs (a zombie left to a non-reaping parent does not count). */
    @JsonIgnore
    public boolean isRunning() {
      return ProcessControl.isRunning(pid);
    }

    /** The text its command line contains while it is still the server the sandbox started. */
    public String commandLineMarker() {
      Path f = Path.of(folder);
      return kind == Kind.ETCD ? EtcdServerProcess.commandLineMarker(f) : MariaDbProcess.commandLineMarker(f);
    }
  }

  public SandboxState with(ManagedProcess process) {
    List<ManagedProcess> list = new ArrayList<>(processes);
    list.removeIf(p -> p.name().equals(process.name()));
    list.add(process);
    return new SandboxState(etcdEndpoint, globalRoot, cellRootPrefix, cell, mysqlUser, list);
  }

  public SandboxState without(String name) {
    List<ManagedProcess> list = new ArrayList<>(processes);
    list.removeIf(p -> p.name().equals(name));
    return new SandboxState(etcdEndpoint, globalRoot, cellRootPrefix, cell, mysqlUser, list);
  }
}
