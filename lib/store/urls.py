"""URL normalisation, domains and the dates that can be read from a URL.

Gold evidence in AVeriTeC mostly cites web.archive.org snapshots, while systems cite live URLs, so
relevance by URL needs one normal form: no archive prefix, no scheme, no `www.`, no trailing
slash, no fragment and no tracking query parameters.
"""

from __future__ import annotations

import re
from datetime import date
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

_WAYBACK = re.compile(
    r"^(?:https?://)?(?:www\.)?(?:web\.)?archive\.org/web/(?P<ts>\d{4,14})[a-z_]*/(?P<rest>.+)$", re.I
)
_TRACKING = re.compile(
    r"^(utm_.*|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|igshid|ref|ref_src|ref_url|cmpid|"
    r"s_cid|ocid|smid|sr_share|__twitter_impression|amp|_ga)$",
    re.I,
)
_MONTH_NAMES = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
# a month in a URL path: its full name, its 3-letter abbreviation, or "sept"; nothing else
_MONTHS = {name: i for i, full in enumerate(_MONTH_NAMES, start=1) for name in (full, full[:3])} | {"sept": 9}
# /2020/08/26/ or /2020/aug/26/ anywhere in the path (the day may be the last segment)
_PATH_DATE = re.compile(r"/(?P<y>(?:19|20)\d{2})/(?P<m>\d{1,2}|[a-z]{3,9})/(?P<d>\d{1,2})(?:/|$|[-_.])", re.I)


def strip_wayback(url: str) -> str:
    """The original URL inside a web.archive.org snapshot URL (unchanged otherwise)."""
    m = _WAYBACK.match(url.strip())
    if not m:
        return url.strip()
    rest = m["rest"]
    return rest if re.match(r"^[a-z]+:/", rest, re.I) else "http://" + rest


def normalise_url(url: str | None) -> str:
    """One normal form for matching URLs: `host/path?query` without archive prefix, scheme, `www.`,
    port 80/443, fragment, tracking parameters or trailing slash; host lower-cased.

    Empty or non-URL strings (AVeriTeC's "Metadata", "") give "".
    """
    if not url or not isinstance(url, str):
        return ""
    url = strip_wayback(url)
    # archived URLs sometimes arrive as http:/host (single slash)
    url = re.sub(r"^([a-z]+):/(?!/)", r"\1://", url, flags=re.I)
    if not re.match(r"^[a-z][a-z0-9+.-]*://", url, re.I):
        if "." not in url.split("/")[0] or " " in url.strip():
            return ""
        url = "http://" + url
    try:
        parts = urlsplit(url)
    except ValueError:  # `http://[::1/x`: no URL (it ended the store's build in a traceback)
        return ""
    host = unicode_host((parts.hostname or "").lower().rstrip("."))
    if host.startswith("www."):
        host = host[4:]
    try:
        port = parts.port
    except ValueError:  # `:99999` or `:abc`, kept as written: a URL that matches only itself
        port = parts.netloc.rsplit(":", 1)[-1]
    if port not in (None, 80, 443):
        host = f"{host}:{port}"
    if not host:
        return ""
    path = unquote(parts.path).rstrip("/")
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _TRACKING.match(k)]
    out = host + path
    if query:
        out += "?" + urlencode(query)
    return out


def unicode_host(host: str) -> str:
    """A host with its punycode labels (`xn--bcher-kva.de`) as the Unicode they encode (`bücher.de`): one form
    for a domain however a URL or a site list spells it (a URL keeps the Unicode it is written in). A label
    that is no valid punycode is kept as written."""
    labels = host.split(".")
    for i, label in enumerate(labels):
        if label.startswith("xn--"):
            try:
                labels[i] = label.encode("ascii").decode("idna")
            except UnicodeError:
                pass
    return ".".join(labels)


def domain_of(url: str | None) -> str:
    """The host of a URL (archive prefix removed), lower-cased, without `www.` or port."""
    norm = normalise_url(url)
    return norm.split("/", 1)[0].split("?", 1)[0].split(":", 1)[0]


def in_domains(domain: str, domains: set[str] | frozenset[str]) -> bool:
    """True if `domain` is one of `domains` or a subdomain of one (ghana.dubawa.org in dubawa.org)."""
    parts = domain.split(".")
    return any(".".join(parts[i:]) in domains for i in range(len(parts) - 1))


def site_key(entry: str) -> str:
    """A site list's entry (`cato.org/blog`, `anews24.org/`, `https://www.x.com/#top`) in the form `on_sites`
    matches: host and path as `normalise_url` gives them, lower-cased."""
    return normalise_url(entry).lower()


def on_sites(norm_url: str, sites: set[str] | frozenset[str]) -> bool:
    """True if a normalised URL lies on one of `sites` (`site_key`s): a domain, with its subdomains as in
    `in_domains`, or a domain's section (`cato.org/blog`: that path and the paths below it, not `/blogger`).
    Paths compare without case."""
    base = norm_url.split("?", 1)[0]
    host, _, path = base.partition("/")
    parts = host.split(":", 1)[0].split(".")
    segments = [s for s in path.lower().split("/") if s]
    for i in range(len(parts) - 1):
        key = ".".join(parts[i:])
        if key in sites:
            return True
        for segment in segments:
            key += "/" + segment
            if key in sites:
                return True
    return False


def wayback_capture_date(url: str | None) -> date | None:
    """The capture date of a web.archive.org snapshot URL (its 14-digit timestamp), else None."""
    if not url:
        return None
    m = _WAYBACK.match(url.strip())
    if not m or len(m["ts"]) < 8:
        return None
    ts = m["ts"]
    try:
        return date(int(ts[:4]), int(ts[4:6]), int(ts[6:8]))
    except ValueError:
        return None


def path_date(url: str | None) -> date | None:
    """A publication date written in the URL path as /YYYY/MM/DD/ or /YYYY/mon/DD/, else None."""
    if not url:
        return None
    try:
        path = urlsplit(strip_wayback(url) if "://" in url else "http://" + url).path
    except ValueError:  # `http://[::1/x`: no URL, so no date (it ended the store's build in a traceback)
        return None
    for m in _PATH_DATE.finditer(path):
        month = m["m"].lower()
        mth = int(month) if month.isdigit() else _MONTHS.get(month)
        if mth is None:
            continue
        try:
            return date(int(m["y"]), mth, int(m["d"]))
        except ValueError:
            continue
    return None


def url_date(url: str | None) -> tuple[date | None, str | None]:
    """The best date a URL gives and where it came from.

    A date in the original URL's path (`"url_path"`, a publication date) wins over a web.archive.org
    capture timestamp (`"wayback"`, only an upper bound: the page existed by then). (None, None) if
    neither can be read.
    """
    if (d := path_date(url)) is not None:
        return d, "url_path"
    if (d := wayback_capture_date(url)) is not None:
        return d, "wayback"
    return None, None


_FACT_CHECK_PATH = re.compile(r"fact[-_ ]?check|hoax[-_]?buster|webqoof|viral[-_]?check", re.I)


def marks_fact_check(url: str | None) -> bool:
    """True if the URL says the page is a fact check: fact-check, factcheck, fact_check... in its path
    or in a subdomain (factcheck.aap.com.au), or a known section name (The Quint's webqoof)."""
    norm = normalise_url(url)
    host, _, path = norm.partition("/")
    subdomains = ".".join(host.split(".")[:-2])  # factcheck.aap of factcheck.aap.com.au; "" for factcheck.org
    return bool(_FACT_CHECK_PATH.search(path) or _FACT_CHECK_PATH.search(subdomains))
