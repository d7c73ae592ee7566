package io.pointsman.engine.tablet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.api.errors.PointsmanException;
import org.junit.jupiter.api.Test;

class TabletEndpointTest {
  @Test
  void parsesHostPortAndIpv6() {
    TabletEndpoint t = TabletEndpoint.of("zone1-0000000100", "127.0.0.1:15991");
    assertThat(t.host()).isEqualTo("127.0.0.1");
    assertThat(t.grpcPort()).isEqualTo(15991);
    assertThat(t.alias().uid()).isEqualTo(100);
    assertThat(TabletEndpoint.of("zone1-1", "[::1]:15991").address()).isEqualTo("[::1]:15991");
  }

  @Test
  void rejectsAddressesThatAreNotHostPortNamingTheTablet() {
    for (String bad : new String[] {"127.0.0.1", "127.0.0.1:", ":15991", "127.0.0.1:port", "127.0.0.1:70000"}) {
      assertThatThrownBy(() -> TabletEndpoint.of("zone1-0000000100", bad)).as(bad)
          .isInstanceOf(PointsmanException.class).hasMessageContaining("zone1-0000000100");
    }
  }
}
