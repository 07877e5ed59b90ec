"""Readable figures, checked: no text drawn over other text, no legend drawn over the data.

A figure a student cannot read teaches nothing, and overlaps are easy to miss in review, so the
notebooks check every figure they show (`install`, called by `lib.site.reports.setup`): matplotlib reports
the bounding box of each drawn text, and

- `overlapping_texts`: two texts (titles, axis labels, tick labels, annotations, legend entries) whose
  boxes intersect by more than `min_px` pixels in both directions;
- `legends_over_data`: a legend inside its axes whose box holds a data point (a marker or line vertex in
  data coordinates, a scatter point) or a bar.

A figure with a problem gets a `Figure check:` line under it in the executed notebook; `lib.site.reports`
counts those lines as findings, so the test suite fails on them. Every figure also carries its
alternative text (`describe`: title, panels, axis labels) in its output's metadata, which the rendered
reports put on the image for screen readers.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
import warnings
from typing import Any

import numpy as np

MARKER = "Figure check:"
ALT = "alt"  # the key of a figure's alternative text in its image/png output metadata (`describe`)


def _drawn_texts(fig) -> list[tuple[str, Any]]:
    """(description, Text) of every non-empty visible text the figure draws."""
    out: list[tuple[str, Any]] = []

    def add(kind: str, text) -> None:
        if text is not None and text.get_visible() and text.get_text().strip():
            out.append((f"{kind} {text.get_text().strip()[:40]!r}", text))

    suptitle = getattr(fig, "_suptitle", None)  # one of the figure's texts
    for t in fig.texts:
        add("suptitle" if t is suptitle else "figure text", t)
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for t in (ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label):
            add("axis title/label", t)
        for axis in (ax.xaxis, ax.yaxis):
            try:
                ticks = axis._update_ticks()  # the ticks matplotlib will draw (not those outside the view)
            except AttributeError:  # pragma: no cover - other matplotlib versions
                ticks = axis.get_major_ticks()
            for tick in ticks:
                for label in (tick.label1, tick.label2):
                    if label.get_visible():
                        add("tick label", label)
        for t in ax.texts:
            add("text", t)
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            add("legend title", legend.get_title())
            for t in legend.get_texts():
                add("legend entry", t)
    for legend in fig.legends:
        add("legend title", legend.get_title())
        for t in legend.get_texts():
            add("legend entry", t)
    return out


def _intersection(a, b) -> tuple[float, float]:
    return min(a.x1, b.x1) - max(a.x0, b.x0), min(a.y1, b.y1) - max(a.y0, b.y0)


def _corners(text, renderer):
    """The four corners (display pixels) of a drawn text's own rectangle: for rotated text (slanted tick
    labels) the rotated rectangle, not its axis-aligned box, which would make neighbours overlap on paper."""

    box = text.get_window_extent(renderer)
    angle = np.deg2rad(text.get_rotation() % 180)
    if min(abs(angle), abs(angle - np.pi / 2), abs(angle - np.pi)) < 1e-6 or "\n" in text.get_text():
        return np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])
    w, h, _ = renderer.get_text_width_height_descent(text.get_text(), text.get_fontproperties(), ismath=False)
    center = np.array([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2])  # the rectangle's centre is the box's
    u, v = np.array([np.cos(angle), np.sin(angle)]), np.array([-np.sin(angle), np.cos(angle)])
    return np.array([center + sx * w / 2 * u + sy * h / 2 * v for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def _overlap_depth(a, b) -> float:
    """How far two convex quadrilaterals overlap along the axis where they overlap least (separating
    axis theorem): <= 0 when a line separates them."""

    depth = np.inf
    for poly in (a, b):
        for i in range(4):
            edge = poly[(i + 1) % 4] - poly[i]
            axis = np.array([-edge[1], edge[0]])
            norm = np.hypot(*axis)
            if norm == 0:
                continue
            pa, pb = a @ axis / norm, b @ axis / norm
            depth = min(depth, min(pa.max(), pb.max()) - max(pa.min(), pb.min()))
    return float(depth)


def _drawn(fig):
    """The figure drawn (so that every position is final) and its renderer."""
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def overlapping_texts(fig, min_px: float = 1.0, renderer=None) -> list[tuple[str, str]]:
    """Pairs of drawn texts whose rectangles overlap by more than `min_px` pixels (`renderer`: of a figure
    drawn already)."""
    renderer = renderer or _drawn(fig)
    shapes = [(name, _corners(t, renderer)) for name, t in _drawn_texts(fig)]
    pairs = []
    for i, (na, a) in enumerate(shapes):
        for nb, b in shapes[i + 1 :]:
            if _overlap_depth(a, b) > min_px:
                pairs.append((na, nb))
    return pairs


def _data_points(ax):
    """Display coordinates of the axes' data: line vertices in data coordinates and scatter offsets."""

    pts = []
    for line in ax.lines:
        if line.get_visible() and line.get_transform() == ax.transData and len(line.get_xydata()):
            pts.append(ax.transData.transform(line.get_xydata()))
    for coll in ax.collections:
        offsets = coll.get_offsets() if coll.get_visible() else []
        if len(offsets) and coll.get_offset_transform() == ax.transData:
            pts.append(ax.transData.transform(offsets))
    pts = [p[np.isfinite(p).all(axis=1)] for p in pts]
    return np.concatenate(pts) if pts else np.zeros((0, 2))


def legends_over_data(fig, min_px: float = 2.0, renderer=None) -> list[str]:
    """Axes whose legend box (inside the axes) holds a data point or overlaps a bar (`renderer`: of a
    figure drawn already)."""
    renderer = renderer or _drawn(fig)
    out = []
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or not legend.get_visible():
            continue
        box, frame = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
        w, h = _intersection(box, frame)
        if w <= min_px or h <= min_px:
            continue  # the legend sits outside the axes
        pts = _data_points(ax)
        inside = (
            (pts[:, 0] > box.x0) & (pts[:, 0] < box.x1) & (pts[:, 1] > box.y0) & (pts[:, 1] < box.y1)
            if len(pts)
            else []
        )
        bars = [
            p for p in ax.patches if p.get_visible() and min(_intersection(box, p.get_window_extent(renderer))) > min_px
        ]
        if sum(inside) or bars:
            title = ax.get_title() or "untitled axes"
            out.append(f"the legend of {title!r} covers {int(sum(inside))} data point(s) and {len(bars)} bar(s)")
    return out


# Offsets (points) tried in turn for a point's label: right above, right below, left above, left below,
# then further out.
LABEL_OFFSETS = ((4, 4), (4, -11), (-4, 4), (-4, -11), (4, 14), (4, -21), (-4, 14), (-4, -21), (12, 26), (12, -33))


def label_points(ax, xs, ys, labels, fontsize: float = 7, offsets=LABEL_OFFSETS) -> list:
    """Annotate each point (x, y) with its label at the first offset where the label stays inside the axes
    and overlaps no label placed before it (greedy, in the order given); where no offset is free the first
    one is used, and the figure check reports it. Call once the layout is final (after `tight_layout`)."""
    renderer = ax.figure.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)

    def annotate(text, x, y, dx, dy):
        ann = ax.annotate(
            str(text), (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=fontsize,
            ha="left" if dx >= 0 else "right",
        )  # fmt: skip
        return ann, ann.get_window_extent(renderer)

    placed, boxes = [], []
    for x, y, text in zip(xs, ys, labels):
        for dx, dy in offsets:
            ann, box = annotate(text, x, y, dx, dy)
            inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
            if inside and all(min(_intersection(box, b)) <= 0 for b in boxes):
                break
            ann.remove()
        else:
            ann, box = annotate(text, x, y, *offsets[0])
        placed.append(ann)
        boxes.append(box)
    return placed


def legend_outside(ax, **kwargs) -> None:
    """Move the axes' legend to the right of the axes, top-aligned, off the data (`sns.move_legend`
    keyword arguments such as `title` and `fontsize` pass through)."""
    import seaborn as sns

    sns.move_legend(ax, "upper left", bbox_to_anchor=(1.01, 1), **kwargs)


def slant_xticklabels(ax, rotation: float = 35) -> None:
    """X tick labels slanted and right-aligned at their ticks: long category names side by side without
    colliding."""
    import matplotlib.pyplot as plt

    plt.setp(ax.get_xticklabels(), rotation=rotation, ha="right", rotation_mode="anchor")


def figure_problems(fig) -> list[str]:
    """Every readability problem found in a figure, as sentences."""
    name = fig.get_suptitle() or next((ax.get_title() for ax in fig.axes if ax.get_title()), "untitled figure")
    renderer = _drawn(fig)  # once for both checks
    problems = [f"{a} overlaps {b}" for a, b in overlapping_texts(fig, renderer=renderer)]
    problems += legends_over_data(fig, renderer=renderer)
    return [f"{name!r}: {p}" for p in problems]


def describe(fig, max_chars: int = 300) -> str:
    """A figure's alternative text, from what it draws: its title, then each panel's title and axis labels
    (`Figure: T. Panel "a": x = ..., y = ...`), cut at `max_chars`. Screen readers read it, and a
    report's images are never left without a description."""
    parts = [f"Figure: {fig.get_suptitle() or 'untitled'}."] if fig.get_suptitle() else []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        axes = [f"{n} = {t}" for n, t in (("x", ax.get_xlabel()), ("y", ax.get_ylabel())) if t.strip()]
        title = ax.get_title().strip()
        if not parts and title:
            parts.append(f"Figure: {title}.")
            title = ""
        panel = ", ".join(axes)
        panel = (f"Panel {title!r}: {panel}." if panel else f"Panel {title!r}.") if title else (panel and panel + ".")
        if panel and panel not in parts:  # panels that say the same thing are said once
            parts.append(panel)
    text = " ".join(parts) or "Figure without a title."
    return text if len(text) <= max_chars else text[: max_chars - 1].rstrip() + "…"


def _plain_repr(fig, printer, cycle) -> None:
    """IPython's text/plain formatter for figures: the usual repr, after printing the figure's problems."""
    for problem in figure_problems(fig):
        print(f"{MARKER} {problem}")
    printer.text(repr(fig))


def install() -> bool:
    """Check every figure an IPython kernel displays (its text/plain formatter runs with the figure still
    open, before the inline backend closes it); False outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return False
    ip = get_ipython()
    if ip is None:
        return False
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    # The inline backend, when it starts (at the first figure), removes every formatter registered for
    # figures; start it first.
    plt.close(plt.figure())
    ip.display_formatter.formatters["text/plain"].for_type(Figure, _plain_repr)
    png = ip.display_formatter.formatters["image/png"]
    try:
        draw = png.lookup_by_type(Figure)
    except KeyError:  # pragma: no cover - an inline backend without a PNG formatter
        return True

    def with_alt(fig):
        out = draw(fig)
        data, md = out if isinstance(out, tuple) else (out, {})
        return data, {**(md or {}), ALT: describe(fig)}

    png.for_type(Figure, with_alt)
    return True


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_FIGURE_PIXELS = 50_000_000  # a study figure is a few million; a 330 KB PNG of 170 million took 4 GB to scale


def alt_of(output: Any) -> str | None:
    """A figure output's alternative text (`describe`, kept in its `image/png` metadata), or None where there is
    none as text: nbformat takes any metadata value, and a string or a number there ended the report check and
    the render in a traceback."""
    meta = (output.get("metadata") or {}).get("image/png")
    alt = meta.get(ALT) if isinstance(meta, dict) else None
    return alt if isinstance(alt, str) and alt.strip() else None


def png_problem(data: Any) -> str | None:
    """Why an output's `image/png` is no PNG (not base64, not a PNG's bytes), or None."""
    try:
        text = data if isinstance(data, str) else "".join(data)
        png = base64.b64decode("".join(text.split()), validate=True)  # line breaks are allowed, nothing else
    except (binascii.Error, TypeError, ValueError):
        return "its image/png is not base64"
    if not png.startswith(PNG_SIGNATURE):
        return "its image/png is not a PNG"
    return _undecodable(png)


def _undecodable(png: bytes) -> str | None:
    """Why a PNG's pixels do not decode (a header that reads well over broken or missing pixel data), or why
    they are not decoded (more than `MAX_FIGURE_PIXELS`: the size is read from the header PIL parses, wherever
    its chunk lies, before any pixel), or None."""
    from PIL import Image

    try:
        with warnings.catch_warnings():  # PIL's own bomb warning: the bound here is lower, and said below
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(png))  # the header only: a chunk before IHDR hid the size from a byte offset
        with img:
            width, height = img.size
            if width * height > MAX_FIGURE_PIXELS:
                return f"its PNG is {width:,} × {height:,} pixels, over the bound of {MAX_FIGURE_PIXELS:,}"
            img.load()
    except Exception as err:  # noqa: BLE001 - PIL raises OSError, SyntaxError, ValueError, zlib.error... per fault
        detail = re.sub(r" <[^>]*>", "", str(err))[:120]  # PIL names the buffer by its address: not repeatable
        return f"its PNG does not decode ({type(err).__name__}: {detail})"
    return None
