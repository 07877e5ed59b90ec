"""`python -m lib.site.sections` is no command: one line naming the commands the package holds."""

from lib.cli import package_main

package_main(__package__)
