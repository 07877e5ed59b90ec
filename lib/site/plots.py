"""`dvc plots show` offline: an HTML template with the chart libraries inlined instead of loaded from a CDN;
and the one other script the site needs, MathJax for the rendered notebooks' formulas (`mathjax`).

DVC's page loads vega, vega-lite and vega-embed from cdn.jsdelivr.net, so in a lab without internet it is
blank. `python -m lib.site.plots template` (run by `make setup`) downloads the same versions from the npm
registry once, checks each tarball against its pinned sha512 integrity (as npm's lockfile does), and writes
`.dvc/plots/offline.html` with the three scripts inside it; `.dvc/config` names it (`plots.html_template`),
so `dvc plots show` writes a page that renders anywhere. The tarballs are kept in `.dvc/plots/npm/` (both are
git-ignored, rebuilt by `make setup`). The same command caches MathJax's tarball, from which the `render` stage
copies one self-contained file (`MATHJAX`: TeX input, SVG output, every extension) beside the notebook pages.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import tarfile
import urllib.request
from pathlib import Path

from lib import outputs as OUT
from lib.cli import ArgumentParser, NamedError, run_main
from lib.paths import ROOT

PLOTS_DIR = ROOT / ".dvc" / "plots"
TEMPLATE = PLOTS_DIR / "offline.html"
REGISTRY = "https://registry.npmjs.org"
# The versions dvc_render's own page loads from the CDN, with the registry's integrity of each tarball.
PACKAGES = {
    "vega": (
        "5.20.2",
        "build/vega.min.js",
        "sha512-qmH7aD9GGPpssVdxL1xgcdxTbQzyRUeRR16Os385ymvQhiwCYQNA6+eXUPAZDTVLfk0RXu6Jzj6kUE5jQ80EVw==",
    ),
    "vega-lite": (
        "5.2.0",
        "build/vega-lite.min.js",
        "sha512-Yxcg8MvYfxHcG6BbkaKT0oVCIMIcE19UvqIsEwBmyd/7h2nzW7oRnID81T8UrY7hpDrIr6wa2JADOT2dhGNErw==",
    ),
    "vega-embed": (
        "6.18.2",
        "build/vega-embed.min.js",
        "sha512-wcDyQPE4J5aiCDc3/suH5RQDvrKkjuLkhzUcbOLwEkNF8/+pp17tS0JghzEvAPNRg+5aG1/N2ydixq8Lk3dOlg==",
    ),
}
# MathJax 3 in one file that loads nothing more (SVG glyphs, no web fonts): the notebook pages' formulas offline.
MATHJAX = (
    "mathjax",
    "3.2.2",
    "es5/tex-svg-full.js",
    "sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw==",
)
PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">{refresh_tag}<title>DVC plots: evidence retrieval for fact verification</title>
<!-- vega, vega-lite and vega-embed inlined by `python -m lib.site.plots template`: this page needs no network -->
{inline}
<style>body{font-family:system-ui,sans-serif;margin:1.5rem}table{border-spacing:15px}</style>
</head><body>
{plot_divs}
</body></html>
"""


class IntegrityError(NamedError, ValueError):
    """A downloaded or cached tarball whose sha512 is not the pinned one."""


def integrity(data: bytes) -> str:
    """npm's integrity string of a tarball: `sha512-` and the base64 digest."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def tarball(name: str, version: str, expected: str, cache: Path = PLOTS_DIR / "npm", fetch=None) -> bytes:
    """The package's tarball from the cache or the registry, checked against `expected`."""
    path = Path(cache) / f"{name}-{version}.tgz"
    data = path.read_bytes() if path.exists() else None
    if data is None or integrity(data) != expected:
        url = f"{REGISTRY}/{name}/-/{name}-{version}.tgz"
        data = (fetch or _download)(url)
        if integrity(data) != expected:
            raise IntegrityError(f"{url}: integrity {integrity(data)}, expected {expected}")
        OUT.write_bytes(path, data)  # a killed download never leaves a half file under the final name
    return data


def _download(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.read()


def script(data: bytes, member: str) -> str:
    """One file of an npm tarball (its files live under `package/`), as text."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        try:
            found = tar.extractfile(f"package/{member}")
        except KeyError:
            found = None
        if found is None:
            raise FileNotFoundError(f"no package/{member} in the tarball")
        return found.read().decode("utf-8")


def write_template(out: Path | str = TEMPLATE, cache: Path | str = PLOTS_DIR / "npm", fetch=None) -> Path:
    """The offline template: DVC's `{plot_divs}` and `{refresh_tag}` placeholders, the libraries inlined
    (`</script` escaped inside them so a string in the code cannot end the tag)."""
    inline = "\n".join(
        "<script>"
        + script(tarball(name, version, expected, Path(cache), fetch), member).replace("</script", "<\\/script")
        + "</script>"
        for name, (version, member, expected) in PACKAGES.items()
    )
    return OUT.write_text(out, PAGE.replace("{inline}", inline))


def mathjax(cache: Path | str = PLOTS_DIR / "npm", fetch=None) -> str:
    """MathJax's one-file build (`MATHJAX`), from the cached tarball or the registry, checked."""
    name, version, member, expected = MATHJAX
    return script(tarball(name, version, expected, Path(cache), fetch), member)


def main(argv: list[str] | None = None) -> None:
    ap = ArgumentParser(
        prog="python -m lib.site.plots", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("template", help="write .dvc/plots/offline.html (downloads three npm tarballs once)")
    ap.parse_args(argv)
    try:
        path = write_template()
        size = len(mathjax())
    except (OSError, IntegrityError) as err:
        raise SystemExit(f"error: {err}") from None
    print(f"{path.relative_to(ROOT)}: vega, vega-lite and vega-embed inlined; `dvc plots show` works offline")
    print(f"MathJax {MATHJAX[1]} cached ({size / 1e6:.1f} MB script) for the notebook pages' formulas")


if __name__ == "__main__":
    run_main(main)
