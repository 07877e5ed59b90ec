"""lib.site.plots: the offline `dvc plots show` template, its integrity checks, and a real render in Chromium."""

import base64
import hashlib
import io
import os
import subprocess
import tarfile

import pytest
from conftest import chromium

from lib.paths import ROOT
from lib.site import plots as PL


def _tgz(files):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_integrity_is_npms_sha512_string():
    assert PL.integrity(b"abc") == "sha512-" + base64.b64encode(hashlib.sha512(b"abc").digest()).decode()


def test_a_tarball_is_checked_cached_and_refetched_when_the_cache_is_corrupt(tmp_path):
    data = _tgz({"build/x.min.js": "var x = 1;"})
    calls = []
    fetch = lambda url: calls.append(url) or data  # noqa: E731
    assert PL.tarball("x", "1.0.0", PL.integrity(data), tmp_path, fetch) == data
    assert calls == ["https://registry.npmjs.org/x/-/x-1.0.0.tgz"] and (tmp_path / "x-1.0.0.tgz").read_bytes() == data
    PL.tarball("x", "1.0.0", PL.integrity(data), tmp_path, fetch)
    assert len(calls) == 1  # from the cache
    (tmp_path / "x-1.0.0.tgz").write_bytes(b"truncated")
    assert PL.tarball("x", "1.0.0", PL.integrity(data), tmp_path, fetch) == data and len(calls) == 2
    with pytest.raises(PL.IntegrityError, match=r"x-2.0.0.tgz: integrity sha512-.*, expected sha512-nope"):
        PL.tarball("x", "2.0.0", "sha512-nope", tmp_path, fetch)
    assert not (tmp_path / "x-2.0.0.tgz").exists()


def test_the_template_inlines_each_script_and_keeps_dvcs_placeholder(tmp_path, monkeypatch):
    tars = {name: _tgz({member: f"/* {name} */ var s = '</script>';"}) for name, (_, member, _) in PL.PACKAGES.items()}
    monkeypatch.setattr(PL, "PACKAGES", {n: (v, m, PL.integrity(tars[n])) for n, (v, m, _) in PL.PACKAGES.items()})
    out = PL.write_template(tmp_path / "t.html", tmp_path / "npm", fetch=lambda url: tars[url.split("/")[3]])
    html = out.read_text()
    assert "{plot_divs}" in html and "cdn." not in html and "<\\/script>" in html
    assert all(f"/* {name} */" in html for name in PL.PACKAGES)
    with pytest.raises(FileNotFoundError, match="no package/build/none.js"):
        PL.script(tars["vega"], "build/none.js")


def test_dvc_plots_show_renders_the_committed_plots_offline(tmp_path):
    if not PL.TEMPLATE.exists():
        pytest.fail("no .dvc/plots/offline.html: `make plots-template` builds it")
    env = {**os.environ, "PATH": f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(["dvc", "plots", "show", "-o", str(tmp_path)], cwd=ROOT, env=env, check=True, capture_output=True)
    page = (tmp_path / "index.html").read_text()
    assert "cdn.jsdelivr" not in page and "vegaEmbed(" in page
    dom = chromium("--virtual-time-budget=5000", "--dump-dom", (tmp_path / "index.html").as_uri())
    assert dom.count("<canvas") == 2  # both plots of dvc.yaml drew their charts, with no network
