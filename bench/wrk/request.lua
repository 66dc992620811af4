-- wrk script for bench/run: one fixed request, sent again and again (wrk's static mode, so the
-- Lua side costs nothing per request). Run from the repository root:
--
--   wrk ... -s bench/wrk/request.lua URL -- json OPERATION BODY   control plane: POST / with
--                                                     X-Amz-Target SageMaker.<OPERATION>
--   wrk ... -s bench/wrk/request.lua URL -- invoke ENDPOINT BYTES runtime: InvokeEndpoint with a
--                                                     JSON body of BYTES bytes
--   wrk ... -s bench/wrk/request.lua URL -- plain    POST / with a small JSON body (the ceiling)
dofile("bench/wrk/report.lua")

function init(args)
  local mode = args[1]
  wrk.method = "POST"
  if mode == "json" then
    wrk.path = "/"
    wrk.headers = bench.control_plane_headers(args[2])
    wrk.body = args[3] or "{}"
  elseif mode == "invoke" then
    local bytes = tonumber(args[3] or "1024")
    wrk.path = "/endpoints/" .. args[2] .. "/invocations"
    wrk.headers = {
      ["Host"] = wrk.headers["Host"],
      ["Content-Type"] = "application/json",
      ["Accept"] = "application/json",
      ["X-Amz-Date"] = bench.amz_date,
      ["Authorization"] = bench.authorization("accept;content-type;host;x-amz-date"),
    }
    wrk.body = '{"data":"' .. string.rep("x", bytes - 11) .. '"}'  -- exactly `bytes` bytes
  elseif mode == "plain" then
    wrk.path = "/"
    wrk.headers = bench.control_plane_headers("DescribeEndpoint")
    wrk.body = '{"EndpointName":"bench-endpoint-0"}'
  else
    error("request.lua: unknown mode " .. tostring(mode))
  end
end
