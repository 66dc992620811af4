#include "ops/containers.hpp"

#include <gtest/gtest.h>

namespace smemu::ops {
namespace {

TEST(ContainerUrl, AcceptsHttpHostAndOptionalPort) {
  EXPECT_EQ(ParseContainerUrl("http://127.0.0.1:8080"), (ContainerAddress{"127.0.0.1", "8080"}));
  EXPECT_EQ(ParseContainerUrl("http://localhost:8080/"), (ContainerAddress{"localhost", "8080"}));
  EXPECT_EQ(ParseContainerUrl("http://model-a.internal"),
            (ContainerAddress{"model-a.internal", "80"}));
  EXPECT_EQ(ParseContainerUrl("http://[::1]:65535"), (ContainerAddress{"::1", "65535"}));
  EXPECT_EQ(ParseContainerUrl("http://[::1]"), (ContainerAddress{"::1", "80"}));
}

TEST(ContainerUrl, RefusesEverythingElse) {
  for (const char* url : {"", "http://", "https://h:1", "HTTP://h:1", "h:1",
                          "http://h:", "http://h:0", "http://h:65536", "http://h:8080/invocations",
                          "http://u:p@h:1", "http://h h:1", "http://[::1", "http://[]:1",
                          "http://[::1]x", "http://[::1]:", "http://h:1:2", "http://h:+1"}) {
    EXPECT_FALSE(ParseContainerUrl(url)) << url;
  }
}

}  // namespace
}  // namespace smemu::ops
