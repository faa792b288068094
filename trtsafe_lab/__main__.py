import sys

from trtsafe_lab.cli import main

sys.exit(main())
