import sys

from rho_rpc.cli import main

sys.exit(main())
