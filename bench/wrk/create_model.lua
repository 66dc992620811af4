-- wrk script for bench/run: CreateModel with a new model name for every request (a durable
-- write each). Run from the repository root:
--
--   wrk ... -s bench/wrk/create_model.lua URL -- PREFIX
--
-- Names are PREFIX-<thread>-<counter>; give each run its own PREFIX.
dofile("bench/wrk/report.lua")

local thread_number = 0
function setup(thread)
  thread:set("thread_id", thread_number)  -- a global in that thread's interpreter
  thread_number = thread_number + 1
end

local prefix
local counter = 0
local headers

function init(args)
  headers = bench.control_plane_headers("CreateModel")
  prefix = (args[1] or "bench") .. "-" .. tostring(thread_id) .. "-"
end

function request()
  counter = counter + 1
  local body = '{"ModelName":"' .. prefix .. counter .. '","ExecutionRoleArn":"arn:aws:iam::' ..
      bench.account .. ':role/bench","PrimaryContainer":{"Image":"' .. bench.account ..
      '.dkr.ecr.' .. bench.region .. '.amazonaws.com/bench:1"}}'
  return wrk.format("POST", "/", headers, body)
end
