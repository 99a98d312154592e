"""The JSON-RPC wire types, one module per group of methods (and one for the notifications).

A method's models are imported with its handler, when its first request arrives: nothing here
is imported on the way to `ready`. `rho_rpc.wire` gathers every type in one namespace.
"""
