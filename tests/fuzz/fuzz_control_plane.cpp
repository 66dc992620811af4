// The control-plane path: X-Amz-Target operation name (first line of the input) and JSON body
// (the rest) -> validation against the model -> dispatch to a handler -> rendered response.
#include "fuzz_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto [operation, body] = smemu::fuzz::SplitFirstLine(data, size);
  smemu::fuzz::SharedHarness().Handle(
      {"POST",
       "/",
       {{"X-Amz-Target", "SageMaker." + operation},
        {"Content-Type", "application/x-amz-json-1.1"},
        {"Authorization",
         "AWS4-HMAC-SHA256 Credential=123456789012/20270125/us-west-2/sagemaker/aws4_request, "
         "SignedHeaders=host, Signature=0"}},
       std::move(body)});
  return 0;
}
