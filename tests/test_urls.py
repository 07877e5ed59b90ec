from datetime import date

import pytest

from lib.store.urls import (
    domain_of,
    in_domains,
    marks_fact_check,
    normalise_url,
    on_sites,
    path_date,
    site_key,
    strip_wayback,
    unicode_host,
    url_date,
    wayback_capture_date,
)


@pytest.mark.parametrize(
    "url, expected",
    [
        ("https://web.archive.org/web/20201129141238/https://scoopertino.com/exposed/", "scoopertino.com/exposed"),
        ("http://web.archive.org/web/20201129141238id_/http://www.Example.COM/a/b/", "example.com/a/b"),
        ("https://web.archive.org/web/2020/example.com/page", "example.com/page"),
        ("https://www.example.com/a?utm_source=x&id=3&fbclid=abc#frag", "example.com/a?id=3"),
        ("https://example.com:443/a/", "example.com/a"),
        ("http://newsmobile.in:80/articles/x", "newsmobile.in/articles/x"),
        ("https://example.com:8080/a", "example.com:8080/a"),
        ("https://maclalala2.wordpress.com/2011/06/24/%E3%81%9F/", "maclalala2.wordpress.com/2011/06/24/た"),
        ("example.org/path/", "example.org/path"),
        ("http://example.com:99999/page", "example.com:99999/page"),  # a bad port: a traceback in the store build
        ("http://example.com:abc/page", "example.com:abc/page"),
        ("http://[::1/x", ""),
        ("Metadata", ""),
        ("", ""),
        (None, ""),
    ],
)
def test_normalise_url(url, expected):
    assert normalise_url(url) == expected


def test_http_and_https_www_and_archive_forms_meet():
    forms = [
        "https://www.nasa.gov/moon/",
        "http://nasa.gov/moon",
        "https://web.archive.org/web/20210320101010/https://www.nasa.gov/moon/",
    ]
    assert {normalise_url(u) for u in forms} == {"nasa.gov/moon"}


def test_strip_wayback_keeps_plain_urls():
    assert strip_wayback("https://example.com/x") == "https://example.com/x"
    assert strip_wayback("https://web.archive.org/web/20200101000000/example.com/x") == "http://example.com/x"


def test_domain_and_subdomain_membership():
    assert domain_of("https://web.archive.org/web/2020/https://www.politifact.com/factchecks/x/") == "politifact.com"
    assert domain_of("http://newsmobile.in:80/x") == "newsmobile.in"
    assert in_domains("ghana.dubawa.org", {"dubawa.org"})
    assert in_domains("dubawa.org", {"dubawa.org"})
    assert not in_domains("notdubawa.org", {"dubawa.org"})
    assert not in_domains("afp.com", {"factcheck.afp.com"})
    assert not in_domains("org", {"org"})  # a bare suffix is never a match


@pytest.mark.parametrize(
    "url, expected",
    [
        ("https://web.archive.org/web/20201129141238/https://x.com/", date(2020, 11, 29)),
        ("https://web.archive.org/web/20201129/https://x.com/", date(2020, 11, 29)),
        ("https://web.archive.org/web/2020/https://x.com/", None),  # too short to read a day
        ("https://web.archive.org/web/20201399000000/https://x.com/", None),  # not a date
        ("https://x.com/2020/11/29/story", None),
    ],
)
def test_wayback_capture_date(url, expected):
    assert wayback_capture_date(url) == expected


@pytest.mark.parametrize(
    "url, expected",
    [
        ("https://www.washingtonpost.com/politics/2020/08/28/fact-checking/", date(2020, 8, 28)),
        ("https://www.politifact.com/factchecks/2020/aug/28/howard-marklein/claim/", date(2020, 8, 28)),
        ("https://example.com/2020/8/3", date(2020, 8, 3)),
        ("https://example.com/2021/september/05/x", date(2021, 9, 5)),
        ("https://example.com/2021/Sept/05/x", date(2021, 9, 5)),
        ("https://example.com/2020/marketing/05/x", None),  # a section name, not March
        ("https://example.com/2020/augment/05/x", None),
        ("https://checkyourfact.com/2020/11/03/fact-check-sean-connery/", date(2020, 11, 3)),
        ("https://example.com/2020/13/01/x", None),  # month 13
        ("https://example.com/2020/02/30/x", None),  # no such day
        ("https://example.com/2020/08/story", None),  # no day
        ("https://example.com/1850/01/01/x", None),  # years outside 19xx/20xx are not dates here
        (None, None),
    ],
)
def test_path_date(url, expected):
    assert path_date(url) == expected


def test_url_date_prefers_the_path_over_the_capture():
    url = "https://web.archive.org/web/20211212000000/https://x.com/2020/01/02/a"
    assert url_date(url) == (date(2020, 1, 2), "url_path")
    assert url_date("https://web.archive.org/web/20211212000000/https://x.com/a") == (date(2021, 12, 12), "wayback")
    assert url_date("https://x.com/a") == (None, None)


@pytest.mark.parametrize(
    "url, expected",
    [
        ("https://www.usatoday.com/story/news/factcheck/2020/10/01/x/", True),
        ("https://www.indiatoday.in/fact-check/story/x", True),
        ("https://www.washingtonpost.com/politics/2020/08/28/fact-checking-rnc/", True),
        ("https://factcheck.aap.com.au/claims/x", True),
        ("https://www.thequint.com/news/webqoof/x", True),
        ("https://www.washingtonpost.com/business/2020/01/01/economy/", False),
        ("https://factcheck.org/", False),  # the host is the domain itself, the path marks nothing
    ],
)
def test_marks_fact_check(url, expected):
    assert marks_fact_check(url) is expected


def test_sites_are_domains_or_sections_of_one():
    sites = {site_key(e) for e in ["cato.org/blog", "anews24.org/", "https://www.bad.com/#articles", "x.org/a/b/"]}
    assert sites == {"cato.org/blog", "anews24.org", "bad.com", "x.org/a/b"}
    assert on_sites("cato.org/blog/77-drug-traffickers", sites)
    assert on_sites("cato.org/Blog", sites)  # paths compare without case
    assert on_sites("www2.cato.org/blog/x?id=3", sites)
    assert not on_sites("cato.org/blogger", sites)
    assert not on_sites("cato.org/publications/blog", sites)
    assert not on_sites("cato.org", sites)
    assert on_sites("news.anews24.org/story", sites) and on_sites("bad.com:8080/x", sites)
    assert on_sites("x.org/a/b/c", sites) and not on_sites("x.org/a", sites) and not on_sites("x.org/a/bc", sites)
    assert not on_sites("org/blog", {"org/blog"})  # a bare suffix is never a match, as in in_domains
    assert not on_sites("", sites)


def test_a_domain_in_punycode_or_in_unicode_is_one_site():
    """A list entry `bücher.de` matched no URL written `xn--bcher-kva.de` and the other way round."""
    assert unicode_host("xn--bcher-kva.de") == "bücher.de" and unicode_host("a.xn--mnchen-3ya.de") == "a.münchen.de"
    assert unicode_host("xn--zz.de") == "xn--zz.de"  # no valid punycode: kept as written
    assert normalise_url("https://www.xn--bcher-kva.de/a/") == normalise_url("http://BÜCHER.de/a") == "bücher.de/a"
    sites = {site_key("bücher.de"), site_key("xn--mnchen-3ya.de/blog")}
    assert sites == {"bücher.de", "münchen.de/blog"}
    assert on_sites(normalise_url("http://xn--bcher-kva.de/x"), sites) and on_sites("bücher.de/y", sites)
    assert on_sites(normalise_url("http://münchen.de/blog/a"), sites)
    assert not on_sites(normalise_url("http://xn--mnchen-3ya.de/blogger"), sites)


def test_a_url_with_an_unclosed_bracket_has_no_path_date():
    assert path_date("http://[::1/2020/01/01/a") is None  # urlsplit's ValueError ended the store build
    assert path_date("https://web.archive.org/web/20200101/http://[fe80::1/2020/01/01/a") is None
