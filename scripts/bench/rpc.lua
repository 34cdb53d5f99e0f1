-- rpc.lua makes wrk send one fixed JSON-RPC request, taken from the RPC_BODY
-- environment variable, on every request. It is the peer survey's script
-- (reference/peers.md §6), unchanged, so figures stay comparable.
-- It defines no response() callback: that would make wrk run Lua per response
-- and lower its ceiling. run.sh checks each body with curl before measuring.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = os.getenv("RPC_BODY")
