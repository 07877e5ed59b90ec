"""`python -m lib` is no command: one line naming the commands at the top of the package."""

from lib.cli import package_main

package_main(__package__)
