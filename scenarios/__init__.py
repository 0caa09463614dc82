"""The shipped scenarios, installed as the package ``tco.templates`` (pyproject.toml's
package-dir), from which ``tco init --template`` copies lab, personal and industrial.

This file makes the folder a regular package: setuptools' editable install maps a regular
package to its folder, but does not find a folder without one under the package ``tco``.
"""
