-- Shared by the wrk scripts of bench/run (loaded with dofile from the repository root): the
-- SigV4-shaped headers, and done(), which prints one `BENCH_RESULT {...}` line with requests,
-- duration, req/s, latency percentiles in microseconds and error counts (non-2xx answers are
-- status errors).
--
-- The Authorization header is shaped like SigV4 but not signed: the emulator takes the account
-- from the 12-digit access key id and the region from the credential scope, and checks signatures
-- only when it runs with --credentials.

bench = {}
bench.account = "123456789012"
bench.region = "us-east-1"
bench.amz_date = "20261129T120000Z"

function bench.authorization(signed_headers)
  return "AWS4-HMAC-SHA256 Credential=" .. bench.account .. "/20261129/" .. bench.region ..
      "/sagemaker/aws4_request, SignedHeaders=" .. signed_headers .. ", Signature=" ..
      string.rep("0123456789abcdef", 4)
end

-- Headers replace wrk.headers wholesale, so they carry wrk's Host header along (HTTP/1.1 needs
-- it; wrk sets it before init() runs).
function bench.control_plane_headers(operation)
  return {
    ["Host"] = wrk.headers["Host"],
    ["Content-Type"] = "application/x-amz-json-1.1",
    ["X-Amz-Target"] = "SageMaker." .. operation,
    ["X-Amz-Date"] = bench.amz_date,
    ["Authorization"] = bench.authorization("content-type;host;x-amz-date;x-amz-target"),
  }
end

function done(summary, latency, requests)
  local errors = summary.errors
  local seconds = summary.duration / 1e6
  io.write(string.format(
      'BENCH_RESULT {"requests":%d,"duration_s":%.3f,"rps":%.1f,"p50_us":%d,"p90_us":%d,' ..
      '"p99_us":%d,"max_us":%d,"mean_us":%.1f,"connect_errors":%d,"read_errors":%d,' ..
      '"write_errors":%d,"status_errors":%d,"timeouts":%d}\n',
      summary.requests, seconds, summary.requests / seconds, latency:percentile(50),
      latency:percentile(90), latency:percentile(99), latency.max, latency.mean,
      errors.connect, errors.read, errors.write, errors.status, errors.timeout))
end
