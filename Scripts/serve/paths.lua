-- wrk script: replays the request paths in the file named by the PATHS environment variable,
-- each thread from its own offset, round and round.
local paths = {}
local counter = 0

function init(args)
    for line in io.lines(os.getenv("PATHS")) do
        if #line > 0 then paths[#paths + 1] = line end
    end
    counter = math.random(#paths)
end

function request()
    counter = counter % #paths + 1
    return wrk.format("GET", paths[counter])
end
