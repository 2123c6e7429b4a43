import sys

from mtstrata.cli import main

sys.exit(main())
