"""Figure checks: overlapping texts and legends over data, each on both sides of the condition."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from lib.site import figures as FG  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_two_texts_at_the_same_place_overlap_and_apart_they_do_not():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.text(0.5, 0.5, "first label", transform=ax.transAxes)
    ax.text(0.52, 0.5, "second label", transform=ax.transAxes)
    pairs = FG.overlapping_texts(fig)
    assert pairs == [("text 'first label'", "text 'second label'")]
    fig2, ax2 = plt.subplots(figsize=(4, 3))
    ax2.text(0.05, 0.1, "first label", transform=ax2.transAxes)
    ax2.text(0.05, 0.8, "second label", transform=ax2.transAxes)
    assert FG.overlapping_texts(fig2) == []


def test_crowded_tick_labels_overlap():
    fig, ax = plt.subplots(figsize=(2, 2))
    names = [f"a long category name {i}" for i in range(12)]
    ax.bar(names, range(12))
    assert any("tick label" in a and "tick label" in b for a, b in FG.overlapping_texts(fig))
    fig2, ax2 = plt.subplots(figsize=(4, 6))
    ax2.barh(names, range(12))  # horizontal: one name per row, readable
    assert FG.overlapping_texts(fig2) == []


def test_slanted_tick_labels_are_judged_by_their_own_rectangles():
    names = ["evidence unavailable", "possible label error", "missed implicit aspect", "noisy retrieval"]
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.bar(names, [1, 2, 3, 4])
    plt.setp(ax.get_xticklabels(), rotation=40, ha="right", rotation_mode="anchor")
    assert FG.overlapping_texts(fig) == []  # their axis-aligned boxes overlap, the texts do not
    fig2, ax2 = plt.subplots(figsize=(1.2, 3))
    ax2.bar(names, [1, 2, 3, 4])
    plt.setp(ax2.get_xticklabels(), rotation=20, ha="right", rotation_mode="anchor")
    assert len(FG.overlapping_texts(fig2)) >= 3


def test_a_legend_over_points_is_found_and_one_outside_the_axes_is_not():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1, 2, 3], [3, 2.9, 2.8, 2.7], "o", label="falling")  # points in the upper left corner too
    ax.plot([0, 3], [0, 0.1], "o", label="low")
    ax.legend(loc="upper left")
    found = FG.legends_over_data(fig)
    assert len(found) == 1 and "covers 1 data point(s)" in found[0]
    fig2, ax2 = plt.subplots(figsize=(4, 3))
    ax2.plot([0, 1, 2, 3], [3, 2.9, 2.8, 2.7], "o", label="falling")
    ax2.legend(loc="upper left", bbox_to_anchor=(1.02, 1))
    assert FG.legends_over_data(fig2) == []


def test_a_legend_over_bars_is_found():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar(["a", "b", "c"], [10, 10, 10], label="height")
    ax.legend(loc="upper right")
    assert FG.legends_over_data(fig) == ["the legend of 'untitled axes' covers 0 data point(s) and 1 bar(s)"]
    ax.set_ylim(0, 20)  # room above the bars
    assert FG.legends_over_data(fig) == []


def test_reference_lines_are_not_data():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], [0, 0.1], "o", label="points")
    ax.axhline(1.0, color="gray")  # spans the axes in axes coordinates, under the legend
    ax.set_ylim(0, 1.05)
    ax.legend(loc="upper right")
    assert FG.legends_over_data(fig) == []


def test_figure_problems_name_the_figure():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.set_title("Figure 9. Crowded")
    ax.text(0.5, 0.5, "x label here", transform=ax.transAxes)
    ax.text(0.5, 0.5, "y label here", transform=ax.transAxes)
    assert FG.figure_problems(fig) == ["'Figure 9. Crowded': text 'x label here' overlaps text 'y label here'"]


def test_install_is_a_no_op_outside_ipython():
    assert FG.install() is False


def test_label_points_moves_labels_apart_where_plain_offsets_collide():
    xs, ys = [0.5, 0.501, 0.502], [0.5, 0.5, 0.501]
    names = ["hero_8b", "fever8", "uhh_top3"]
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.scatter(xs, ys)
    ax.set(xlim=(0, 1), ylim=(0, 1))  # the points a pixel apart
    for x, y, n in zip(xs, ys, names):
        ax.annotate(n, (x, y), xytext=(4, 4), textcoords="offset points", fontsize=7)
    assert FG.overlapping_texts(fig)  # one offset for all: they collide
    fig2, ax2 = plt.subplots(figsize=(4, 3))
    ax2.scatter(xs, ys)
    ax2.set(xlim=(0, 1), ylim=(0, 1))
    placed = FG.label_points(ax2, xs, ys, names)
    assert [a.get_text() for a in placed] == names
    assert FG.overlapping_texts(fig2) == []


def test_label_points_keeps_labels_inside_the_axes():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.scatter([1.0], [1.0])
    ax.set(xlim=(0, 1.02), ylim=(0, 1.02))
    (ann,) = FG.label_points(ax, [1.0], [1.0], ["reference_gold"])
    renderer = fig.canvas.get_renderer()
    box, frame = ann.get_window_extent(renderer), ax.get_window_extent(renderer)
    assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and box.y1 <= frame.y1
    assert ann.xy == (1.0, 1.0) and ann.xyann[0] < 0  # to the left of its point


def test_describe_names_the_title_then_each_panel_and_its_axes():
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2)
    fig.suptitle("Figure 3. Two panels")
    axes[0].plot([0, 1], [1, 2])
    axes[0].set(title="left", xlabel="k", ylabel="NDCG@k")
    axes[1].plot([0, 1], [1, 2])
    axes[1].set(xlabel="k")
    assert FG.describe(fig) == "Figure: Figure 3. Two panels. Panel 'left': x = k, y = NDCG@k. x = k."
    assert FG.describe(fig, max_chars=20) == "Figure: Figure 3. T…"
    plt.close(fig)
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 2])
    ax.set(title="Only an axes title", xlabel="x")
    assert FG.describe(fig) == "Figure: Only an axes title. x = x."
    plt.close(fig)
    fig, axes = plt.subplots(1, 3)
    fig.suptitle("Facets")
    axes[0].set(title="a", xlabel="k")
    axes[1].set(title="b")  # a panel without axis labels: its title alone
    axes[2].set(xlabel="k")
    axes[0].figure.add_subplot(2, 2, 4).set(xlabel="k")  # says what axes[2] says: once
    assert FG.describe(fig) == "Figure: Facets. Panel 'a': x = k. Panel 'b'. x = k."
    plt.close(fig)
    fig, ax = plt.subplots()
    assert FG.describe(fig) == "Figure without a title."
    plt.close(fig)
