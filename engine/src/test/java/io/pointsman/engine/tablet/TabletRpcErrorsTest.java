package io.pointsman.engine.tablet;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.pointsman.api.errors.ErrorCode;
import io.pointsman.api.errors.PointsmanException;
import org.junit.jupiter.api.Test;

class TabletRpcErrorsTest {
  private static final TabletEndpoint TABLET = TabletEndpoint.of("zone1-0000000200", "127.0.0.1:15999");

  @Test
  void unreachableAndOverloadedTabletsAreRetryable() {
    for (Status.Code c : new Status.Code[] {Status.Code.UNAVAILABLE, Status.Code.RESOURCE_EXHAUSTED, Status.Code.ABORTED}) {
      PointsmanException e = translate(c, false);
      assertThat(e.code()).as(c.name()).isEqualTo(ErrorCode.UNAVAILABLE);
      assertThat(e.retryable()).isTrue();
    }
  }

  @Test
  void aTimedOutReadIsADeadlineButATimedOutChangeHasAnUnknownOutcome() {
    assertThat(translate(Status.Code.DEADLINE_EXCEEDED, false).code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
    assertThat(translate(Status.Code.DEADLINE_EXCEEDED, true).code()).isEqualTo(ErrorCode.UNKNOWN_OUTCOME);
    assertThat(translate(Status.Code.CANCELLED, true).code()).isEqualTo(ErrorCode.UNKNOWN_OUTCOME);
    assertThat(translate(Status.Code.DEADLINE_EXCEEDED, true).retryable()).isTrue();
  }

  /**
   * A wait that the tablet gives up on itself comes back as UNKNOWN with Go's context error in the
   * text (VReplicationWaitForPos: "error waiting for pos: ...: context deadline exceeded"), whichever
   * deadline fires first; it is the same timeout as the client's own DEADLINE_EXCEEDED.
   */
  @Test
  void aTabletSideContextDeadlineIsADeadline() {
    String waited = "TabletManager.VReplicationWaitForPos on zone1-0000000200: error waiting for pos:"
        + " MariaDB/0-100-1029, last pos: MariaDB/0-100-28: context deadline exceeded, wait time: 1.99s";
    assertThat(translateUnknown(waited, false)).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
    assertThat(translateUnknown(waited, true)).isEqualTo(ErrorCode.UNKNOWN_OUTCOME);
    assertThat(translateUnknown("error: context canceled", true)).isEqualTo(ErrorCode.UNKNOWN_OUTCOME);
    // a wrapped code still wins over the text around it
    assertThat(translateUnknown("rpc error: code = InvalidArgument desc = context deadline exceeded", false))
        .isEqualTo(ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void badRequestsAndRefusedStatesAreNotRetryable() {
    assertThat(translate(Status.Code.INVALID_ARGUMENT, true).code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(translate(Status.Code.FAILED_PRECONDITION, true).code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
    assertThat(translate(Status.Code.PERMISSION_DENIED, true).code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
    assertThat(translate(Status.Code.NOT_FOUND, false).code()).isEqualTo(ErrorCode.NOT_FOUND);
    assertThat(translate(Status.Code.ALREADY_EXISTS, true).code()).isEqualTo(ErrorCode.ALREADY_EXISTS);
    // vttablet's plain errors arrive as UNKNOWN
    assertThat(translate(Status.Code.UNKNOWN, false).code()).isEqualTo(ErrorCode.INTERNAL);
    for (Status.Code c : new Status.Code[] {Status.Code.INVALID_ARGUMENT, Status.Code.FAILED_PRECONDITION, Status.Code.UNKNOWN}) {
      assertThat(translate(c, true).retryable()).as(c.name()).isFalse();
    }
  }

  @Test
  void aHandshakeFailureWrappedByOpenSslIsNamedByItsInnermostReason() {
    // what grpc-netty-shaded's OpenSSL engine reports: the reason under a generic SSLException
    var reason = new java.security.cert.CertificateException("No subject alternative DNS name matching db-9.example found.");
    var ssl = new javax.net.ssl.SSLHandshakeException("General OpenSslEngine problem");
    ssl.initCause(reason);
    TabletTls tls = TabletTls.verifiedBy(java.nio.file.Path.of("ca.pem")).withServerName("db-9.example");
    PointsmanException e = TabletRpcErrors.translate("PrimaryPosition", TABLET, false,
        Status.UNAVAILABLE.withDescription("io exception").withCause(ssl).asRuntimeException(), tls);
    assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
    assertThat(e.getMessage()).contains("the tablet's server certificate does not name db-9.example (check "
        + TabletTls.SERVER_NAME + ") [No subject alternative DNS name matching db-9.example found.]");
  }

  @Test
  void aDroppedPlaintextConnectionHintsAtTlsOnlyForAPlaintextClient() {
    var dropped = Status.UNAVAILABLE.withDescription("Network closed for unknown reason").asRuntimeException();
    assertThat(TabletRpcErrors.translate("PrimaryPosition", TABLET, false, dropped).getMessage())
        .contains("if the tablet serves TLS", TabletTls.CA_FILE);
    TabletTls tls = TabletTls.verifiedBy(java.nio.file.Path.of("ca.pem"));
    assertThat(TabletRpcErrors.translate("PrimaryPosition", TABLET, false, dropped, tls).getMessage())
        .doesNotContain("if the tablet serves TLS");
  }

  @Test
  void anUnknownStatusTakesTheCodeOfTheErrorItWraps() {
    PointsmanException e = TabletRpcErrors.translate("ExecuteFetchAsDba", TABLET, true, Status.UNKNOWN.withDescription(
        "TabletManager.ExecuteFetchAsDba on zone1-0000000100: rpc error: code = InvalidArgument desc = multi statement "
            + "queries are not supported in ExecuteFetchAsDba").asRuntimeException());
    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(translateUnknown("a: rpc error: code = Unavailable desc = b: rpc error: code = Canceled desc = c", false))
        .isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
    assertThat(translateUnknown("rpc error: code = FailedPrecondition desc = x", true)).isEqualTo(ErrorCode.FAILED_PRECONDITION);
    assertThat(translateUnknown("replication has stopped at 0-100-5 before reaching position 0-100-9", false))
        .isEqualTo(ErrorCode.INTERNAL);
    assertThat(translateUnknown("rpc error: code = NoSuchCode desc = x", false)).isEqualTo(ErrorCode.INTERNAL);
  }

  @Test
  void theMessageNamesTheRpcTheTabletAndWhatItSaid() {
    PointsmanException e = TabletRpcErrors.translate("UpdateVReplicationWorkflow", TABLET, true,
        Status.FAILED_PRECONDITION.withDescription("cannot start a workflow when it is frozen").asRuntimeException());
    assertThat(e.getMessage()).isEqualTo("UpdateVReplicationWorkflow on tablet zone1-0000000200 at 127.0.0.1:15999 failed "
        + "with FAILED_PRECONDITION: cannot start a workflow when it is frozen");
    assertThat(e.getCause()).isNotNull();
  }

  private static ErrorCode translateUnknown(String description, boolean mutating) {
    return TabletRpcErrors.translate("SomeRpc", TABLET, mutating, Status.UNKNOWN.withDescription(description).asRuntimeException()).code();
  }

  private static PointsmanException translate(Status.Code code, boolean mutating) {
    return TabletRpcErrors.translate("SomeRpc", TABLET, mutating, Status.fromCode(code).withDescription("x").asRuntimeException());
  }
}
