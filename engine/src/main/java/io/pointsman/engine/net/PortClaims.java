package io.pointsman.engine.net;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims on loopback ports, shared by every process on this machine that takes its ports from
 * {@link LoopbackPorts}: a lock on the byte at the port's offset in one file of the temporary folder,
 * held until the process ends (the kernel drops a process's locks when it exits, however it exits).
 *
 * <p>A port handed out is free, and stays free until its server binds it, up to seconds later on a
 * loaded machine. Test JVMs run side by side (Maven's module threads and surefire's forks), each
 * choosing at random from the same range: one of them chose a port another had just handed to a
 * MariaDB still starting, and that MariaDB could not bind it. The lock is the atomic part of the
 * choice across processes, as the set of ports handed out is within one.
 */
final class PortClaims {
  private static final Logger log = LoggerFactory.getLogger(PortClaims.class);
  static final Path FILE = Path.of(System.getProperty("java.io.tmpdir"), "pointsman-loopback-ports.lock");

  /** Guarded by the class: the channel the locks are held through, opened at the first claim. */
  private static FileChannel channel;
  private static boolean unusable;
  /** Kept so that nothing but the process's end releases them. */
  private static final List<FileLock> HELD = new ArrayList<>();

  private PortClaims() {}

  /**
   * Claims the port for this process, unless another process holds it. Without the shared file (it
   * cannot be opened: another user's, say) every port counts as claimed here: the choice is then
   * guarded within this process only, as it was before the file.
   *
   * @return false if another process claimed the port
   */
  static synchronized boolean claim(int port) {
    FileChannel c = channel();
    if (c == null) {
      return true;
    }
    try {
      FileLock lock = c.tryLock(port, 1, false);
      if (lock == null) {
        return false;
      }
      HELD.add(lock);
      return true;
    } catch (OverlappingFileLockException mine) {
      return true; // this process holds it already
    } catch (IOException e) {
      log.warn("cannot lock port {} in {}: {}; the port is guarded within this process only", port, FILE,
          e.toString());
      return true;
    }
  }

  private static FileChannel channel() {
    if (channel == null && !unusable) {
      try {
        channel = FileChannel.open(FILE, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      } catch (IOException | UnsupportedOperationException e) {
        unusable = true;
        log.warn("cannot open {}: {}; ports are guarded within this process only", FILE, e.toString());
      }
    }
    return channel;
  }
}
