"""lib.training: batches, the optimiser's parameter groups and the warm-up/decay schedule."""

from __future__ import annotations

import pytest
import torch

from lib import training as TR


def test_batches_cover_every_example_once_and_are_deterministic():
    lengths = [5, 1, 9, 3, 3, 7, 2, 8, 4, 6, 1]
    a = TR.batches(lengths, 3, seed=1)
    assert sorted(i for b in a for i in b) == list(range(len(lengths)))
    assert a == TR.batches(lengths, 3, seed=1) and a != TR.batches(lengths, 3, seed=2)
    assert all(len(b) <= 3 for b in a)
    assert TR.epoch_batches(lengths, 3, seed=1, epochs=2) == [a, TR.batches(lengths, 3, seed=2)]


def test_adamw_exempts_biases_and_norms_from_decay_and_skips_frozen_parameters():
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.LayerNorm(2), torch.nn.Linear(2, 1))
    model[2].weight.requires_grad = False
    opt = TR.adamw(model.named_parameters(), lr=0.1, weight_decay=0.01, no_decay=("bias", "1.weight"))
    decayed, exempt = opt.param_groups
    assert decayed["weight_decay"] == 0.01 and [p.shape for p in decayed["params"]] == [(2, 2)]
    assert exempt["weight_decay"] == 0.0 and len(exempt["params"]) == 4  # 3 biases, the norm's weight
    one = TR.adamw(model.named_parameters(), lr=0.1, weight_decay=0.01, no_decay=())
    assert len(one.param_groups) == 1 and len(one.param_groups[0]["params"]) == 5


def test_warmup_then_linear_decay_to_zero():
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    sched = TR.warmup_decay(opt, warmup=0.2, total_steps=10)  # 2 warm-up steps
    rates = []
    for _ in range(10):
        rates.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert rates == pytest.approx([0.5, 1.0, 1.0, 0.875, 0.75, 0.625, 0.5, 0.375, 0.25, 0.125])


def test_step_updates_and_clears_the_gradient():
    w = torch.nn.Parameter(torch.tensor([1.0]))
    opt = torch.optim.SGD([w], lr=0.5)
    sched = TR.warmup_decay(opt, warmup=0.0, total_steps=4)
    loss = TR.step((w * 3).sum(), [w], opt, sched, max_grad_norm=1.0)  # gradient 3, clipped to 1
    assert loss == 3.0 and w.item() == pytest.approx(0.5)
    assert w.grad is None or float(w.grad.abs().sum()) == 0.0


def test_adamw_is_fused_and_steps_as_the_reference_implementation():
    torch.manual_seed(0)
    a = torch.nn.Linear(4, 3)
    b = torch.nn.Linear(4, 3)
    b.load_state_dict(a.state_dict())
    fused = TR.adamw(a.named_parameters(), lr=0.1, weight_decay=0.01, no_decay=())
    reference = torch.optim.AdamW(b.parameters(), lr=0.1, weight_decay=0.01, fused=False, foreach=False)
    assert fused.defaults["fused"] is True
    x = torch.randn(5, 4)
    for model, opt in ((a, fused), (b, reference)):
        for _ in range(3):
            model(x).pow(2).sum().backward()
            opt.step()
            opt.zero_grad()
    for p, q in zip(a.parameters(), b.parameters()):
        torch.testing.assert_close(p, q)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_loss_that_is_not_finite_stops_the_training_before_it_touches_the_weights(bad):
    """A learning rate of 1e6 trained on into NaN weights, and the run reported a one-class macro-F1, exit 0."""
    w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    opt = torch.optim.SGD([w], lr=0.5)
    sched = TR.warmup_decay(opt, warmup=0.0, total_steps=10)
    loss = (w * torch.tensor(bad)).sum()
    with pytest.raises(TR.DivergedError, match=r"^the training loss is (nan|inf) at a learning rate of 0\.5 "):
        TR.step(loss, [w], opt, sched)
    assert w.tolist() == [1.0, 2.0] and w.grad is None
    assert TR.step((w * 1.0).sum(), [w], opt, sched) == 3.0
