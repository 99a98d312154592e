"""The program the Landlock backend starts in front of every command (standard library only).

rho starts it as `python -I -S -c BOOT DOCUMENT -- ARGV…` (see `launch.boot_argv`): it
confines itself as the document says and then `exec`s the command, so the command and all
it starts inherit every restriction and none can be undone:

1. where the machine allows, new namespaces (`namespaces.enter`): a user namespace (an
   unprivileged uid for a root rho), a mount namespace (every `.git`/`.rho` bound read-only,
   a private `/tmp`, credentials hidden), a PID namespace (everything dies with the command)
   and, without network, a network namespace with only its loopback;
2. a Landlock ruleset (`rules.restrict`): reads everywhere but the credentials, writes only
   in the project (minus its repository internals), the granted paths and temp;
3. no privileges (`privileges.lock_down`): every capability dropped for good,
   `no_new_privs`, and the seccomp filter rho built (no set-ID files, no namespaces, and no
   network where no namespace cuts it).

Nothing here is imported by rho at run time except `document` (the format both sides
share); the modules import each other relatively, so the package runs standalone.
"""
