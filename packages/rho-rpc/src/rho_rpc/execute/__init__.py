"""`rho exec`: one prompt from a terminal, a script or CI, on the runtime `rho` serves.

`rho exec "PROMPT"` (or the prompt on stdin) runs the prompt to its end and exits. On a
terminal a person sees it rendered (`screen`) and answers approvals there (`gates`); a
program gets the reply alone on stdout, or `--json` (one object at the end) or
`--stream-json` (the server's notifications, one per line) (`outputs`). See docs/exec.md.
"""
