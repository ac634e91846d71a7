"""The mathematics of each zoo positional encoding, on small tensors, against the equations of its paper."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from swapbench.core.registry import ENCODINGS
from swapbench.probing import attenuated_matrix
from swapbench.zoo.config import ZooConfig
from swapbench.zoo.encodings import LayerScores, ModelPositions
from swapbench.zoo.encodings.absolute import LearnedAbsolute, Sinusoidal, sinusoidal_table
from swapbench.zoo.encodings.alibi import Alibi, alibi_slopes
from swapbench.zoo.encodings.attenuated import Attenuated, attenuated_bias
from swapbench.zoo.encodings.relative import HuangM4Scores, ShawScores
from swapbench.zoo.encodings.rope import RopeScores, rope_angles, rotate
from swapbench.zoo.encodings.t5 import T5Bias, t5_bucket
from swapbench.zoo.encodings.tisa import TisaScores, tisa_bias
from swapbench.zoo.encodings.tupe import Tupe


def config(encoding: str, **overrides) -> ZooConfig:
    settings = dict(
        vocab_size=50,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=12,
        position_encoding=encoding,
    )
    return ZooConfig(**{**settings, **overrides})


def generator(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def initialised(module, seed: int = 0):
    """The module's parameters drawn from a seeded generator (large enough that every term matters)."""
    g = generator(seed)
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=g))
    return module


def test_every_encoding_has_its_parts():
    assert ENCODINGS.names() == [
        "none",
        "learned_absolute",
        "sinusoidal",
        "rope",
        "alibi",
        "t5_bias",
        "shaw",
        "huang_m4",
        "tisa",
        "tupe",
        "attenuated",
    ]
    for entry in ENCODINGS:
        assert issubclass(entry.value.positions, ModelPositions) and issubclass(entry.value.scores, LayerScores)


# ---- absolute --------------------------------------------------------------------------------------------------


def test_learned_absolute_gives_one_trained_vector_per_position():
    positions = LearnedAbsolute(config("learned_absolute"))
    table = positions.input_embeddings(7, torch.device("cpu"), torch.float32)
    assert table.shape == (7, 16)
    assert torch.equal(table, positions.position_embeddings.weight[:7])
    assert table.requires_grad
    with pytest.raises(ValueError, match="exceed the 12 learned positions"):
        positions.input_embeddings(13, torch.device("cpu"), torch.float32)


def test_sinusoidal_follows_vaswani_et_al():
    table = Sinusoidal(config("sinusoidal")).input_embeddings(20, torch.device("cpu"), torch.float32)
    assert table.shape == (20, 16)
    assert list(Sinusoidal(config("sinusoidal")).parameters()) == []
    scale = config("sinusoidal").initializer_range  # the paper's position/word ratio with BERT's word init
    for pos, i in ((0, 0), (3, 0), (5, 2), (19, 7)):
        angle = pos / 10000 ** (2 * i / 16)
        assert table[pos, 2 * i].item() == pytest.approx(scale * math.sin(angle), abs=1e-7)
        assert table[pos, 2 * i + 1].item() == pytest.approx(scale * math.cos(angle), abs=1e-7)
    # Any length: the table for 20 positions starts with the table for 5.
    assert torch.equal(sinusoidal_table(5, 16), sinusoidal_table(20, 16)[:5])


# ---- rope ------------------------------------------------------------------------------------------------------


def test_rope_scores_depend_only_on_j_minus_i():
    g = generator(1)
    q, k = torch.randn(8, generator=g), torch.randn(8, generator=g)
    length = 9
    scores = RopeScores(config("rope", hidden_size=16))  # head size 8
    logits = scores(q.expand(1, 1, length, 8), k.expand(1, 1, length, 8), None)[0, 0]
    for i in range(length - 1):
        for j in range(length - 1):
            assert logits[i + 1, j + 1].item() == pytest.approx(logits[i, j].item(), abs=1e-5)
    # ...and do depend on it: the same q and k score differently at different distances.
    assert logits[0].std().item() > 1e-2


def test_rope_is_a_rotation_by_position_times_theta():
    g = generator(2)
    x = torch.randn(1, 1, 5, 8, generator=g)
    angles = rope_angles(5, 8)
    assert angles[3, 1].item() == pytest.approx(3 * 10000 ** (-2 / 8))
    rotated = rotate(x, angles)
    assert torch.allclose(rotated.norm(dim=-1), x.norm(dim=-1), atol=1e-6)
    assert torch.equal(rotated[..., 0, :], x[..., 0, :])  # position 0 is not rotated
    c, s = math.cos(angles[2, 0].item()), math.sin(angles[2, 0].item())
    x0, x1 = x[0, 0, 2, 0].item(), x[0, 0, 2, 1].item()
    assert rotated[0, 0, 2, 0].item() == pytest.approx(x0 * c - x1 * s, abs=1e-6)
    assert rotated[0, 0, 2, 1].item() == pytest.approx(x0 * s + x1 * c, abs=1e-6)


# ---- alibi -----------------------------------------------------------------------------------------------------


def test_alibi_slopes_follow_the_papers_geometric_sequence():
    assert alibi_slopes(8) == pytest.approx([2**-k for k in range(1, 9)])
    assert alibi_slopes(2) == pytest.approx([2**-4, 2**-8])
    assert alibi_slopes(16) == pytest.approx([2 ** (-k / 2) for k in range(1, 17)])
    # 12 heads: the 8 slopes of 8 heads, then every other slope of 16 heads.
    assert alibi_slopes(12) == pytest.approx([2**-k for k in range(1, 9)] + [2 ** (-k / 2) for k in (1, 3, 5, 7)])


def test_alibi_bias_is_minus_slope_times_distance():
    bias = Alibi(config("alibi", num_attention_heads=4)).shared_bias(6, torch.device("cpu"), torch.float32)
    assert bias.shape == (4, 6, 6)
    slopes = alibi_slopes(4)
    for h in range(4):
        for i in range(6):
            for j in range(6):
                assert bias[h, i, j].item() == pytest.approx(-slopes[h] * abs(i - j))


# ---- t5_bias ---------------------------------------------------------------------------------------------------

# (j - i, bucket) for 32 buckets and max distance 128, worked out by hand from the published function: keys before
# the query use buckets 0-15, keys after it 16-31; distances 0-7 get their own bucket, 8-127 share buckets 8-15
# logarithmically, and 128 and beyond fall in the last one.
T5_BUCKETS = [
    (0, 0),
    (-1, 1),
    (-7, 7),
    (-8, 8),
    (-11, 8),
    (-12, 9),
    (-16, 10),
    (-32, 12),
    (-64, 14),
    (-127, 15),
    (-128, 15),
    (-1000, 15),
    (1, 17),
    (7, 23),
    (8, 24),
    (16, 26),
    (127, 31),
    (500, 31),
]


@pytest.mark.parametrize("relative, bucket", T5_BUCKETS)
def test_t5_buckets_at_chosen_distances(relative, bucket):
    assert t5_bucket(torch.tensor([relative]), 32, 128).item() == bucket


def test_t5_buckets_match_the_published_function():
    from transformers.models.t5.modeling_t5 import T5Attention

    relative = torch.arange(-300, 301)
    for buckets, distance in ((32, 128), (16, 64), (8, 20)):
        published = T5Attention._relative_position_bucket(
            relative, bidirectional=True, num_buckets=buckets, max_distance=distance
        )
        assert torch.equal(t5_bucket(relative, buckets, distance), published)


def test_t5_bias_reads_one_scalar_per_bucket_and_head():
    positions = initialised(T5Bias(config("t5_bias")))
    bias = positions.shared_bias(10, torch.device("cpu"), torch.float32)
    assert bias.shape == (2, 10, 10)
    table = positions.bias
    assert bias[1, 2, 7].item() == table[t5_bucket(torch.tensor(5)).item(), 1].item()
    assert bias[0, 7, 2].item() == table[t5_bucket(torch.tensor(-5)).item(), 0].item()


# ---- shaw and huang_m4 -----------------------------------------------------------------------------------------


def queries_and_keys(length: int = 7, head_size: int = 8, seed: int = 3):
    g = generator(seed)
    return torch.randn(1, 2, length, head_size, generator=g), torch.randn(1, 2, length, head_size, generator=g)


def test_shaw_clips_relative_distances_beyond_k():
    scores = initialised(ShawScores(config("shaw", max_relative_distance=2)))
    a = scores.relative_embeddings(7, torch.device("cpu"), torch.float32)
    table = scores.relative_keys.weight
    assert table.shape == (5, 8)  # 2k + 1 embeddings of the head size
    for i in range(7):
        for j in range(7):
            assert torch.equal(a[i, j], table[max(-2, min(2, j - i)) + 2])
    assert torch.equal(a[0, 2], a[0, 6])  # j - i = 2 and 6 are both clipped to k = 2
    assert not torch.equal(a[0, 1], a[0, 2])


def assert_relative_logits(scores, expected):
    """Every logit of `scores` equals expected(q_i, k_j, a_ij) / sqrt(head size), a_ij its relative embedding."""
    q, k = queries_and_keys()
    logits = scores(q, k, None)
    a = scores.relative_embeddings(7, torch.device("cpu"), torch.float32)
    for h in range(2):
        for i in range(7):
            for j in range(7):
                value = expected(q[0, h, i], k[0, h, j], a[i, j]) / math.sqrt(8)
                assert logits[0, h, i, j].item() == pytest.approx(value.item(), abs=1e-5)


def test_shaw_logits_are_query_dot_key_plus_relative_key():
    scores = initialised(ShawScores(config("shaw", max_relative_distance=2)))
    assert_relative_logits(scores, lambda q, k, a: q @ (k + a))


def test_huang_method_4_adds_query_and_key_interactions_with_the_relative_embedding():
    scores = initialised(HuangM4Scores(config("huang_m4", max_relative_distance=3)))
    assert_relative_logits(scores, lambda q, k, a: q @ k + q @ a + k @ a)


def test_tisa_bias_is_the_stated_kernel_sum():
    g = generator(4)
    a, b, c = torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g), 3 * torch.randn(3, 4, generator=g)
    bias = tisa_bias(a, b, c, 6)
    assert bias.shape == (3, 6, 6)
    for h in range(3):
        for i in range(6):
            for j in range(6):
                expected = sum(a[h, s] * math.exp(-abs(b[h, s]) * (i - j - c[h, s]) ** 2) for s in range(4))
                assert bias[h, i, j].item() == pytest.approx(float(expected), abs=1e-5)


def test_tisa_has_s_kernels_per_head_in_each_layer_and_adds_them_to_the_logits():
    scores = initialised(TisaScores(config("tisa", tisa_kernels=3)))
    assert scores.amplitudes.shape == scores.sharpness.shape == scores.offsets.shape == (2, 3)
    q, k = queries_and_keys()
    expected = q @ k.transpose(-1, -2) / math.sqrt(8) + tisa_bias(
        scores.amplitudes, scores.sharpness, scores.offsets, 7
    )
    assert torch.allclose(scores(q, k, None), expected, atol=1e-5)


# ---- tupe ------------------------------------------------------------------------------------------------------


def test_tupe_unties_positions_and_the_cls_token():
    positions = initialised(Tupe(config("tupe")))
    bias = positions.shared_bias(6, torch.device("cpu"), torch.float32)
    p = positions.position_norm(positions.position_embeddings.weight[:6])
    u_q, u_k = positions.query(p).view(6, 2, 8), positions.key(p).view(6, 2, 8)
    for h in range(2):
        assert torch.allclose(bias[h, 0, :], positions.cls_to_others[h].expand(6))  # theta_1: row of [CLS]
        assert torch.allclose(bias[h, 1:, 0], positions.others_to_cls[h].expand(5))  # theta_2: column of [CLS]
        for i in range(1, 6):
            for j in range(1, 6):
                expected = u_q[i, h] @ u_k[j, h] / math.sqrt(2 * 8)
                assert bias[h, i, j].item() == pytest.approx(expected.item(), abs=1e-5)


# ---- attenuated ------------------------------------------------------------------------------------------------


def test_attenuated_bias_is_equation_8():
    w, s = 0.3, 2.5
    alpha = attenuated_bias(7, w, s, dtype=torch.float64)
    for i in range(7):
        for j in range(7):
            expected = -s * w * (i - j) ** 2 if i <= j else -w * (i - j) ** 2
            assert alpha[i, j].item() == pytest.approx(expected)
    # Its row-wise softmax is the probe's reference matrix of the same w and s.
    np.testing.assert_allclose(
        torch.softmax(alpha, dim=-1).numpy(), attenuated_matrix(7, locality=w, symmetry=s), atol=1e-12
    )


def test_attenuated_fixed_or_learnable():
    fixed = Attenuated(
        config("attenuated", attenuated_learnable=False, attenuated_locality=0.4, attenuated_symmetry=0.5)
    )
    assert list(fixed.parameters()) == []
    assert torch.equal(fixed.shared_bias(5, torch.device("cpu"), torch.float32)[0], attenuated_bias(5, 0.4, 0.5))

    learnable = Attenuated(config("attenuated", attenuated_locality=0.4, attenuated_symmetry=0.5))
    learnable.init_parameters(0.02)
    assert learnable.locality.item() == pytest.approx(0.4)  # starts at the config's w and s...
    assert learnable.symmetry.item() == pytest.approx(0.5)
    learnable.shared_bias(5, torch.device("cpu"), torch.float32).sum().backward()
    assert learnable.raw_locality.grad.item() != 0  # ...and learns both
    assert learnable.symmetry_parameter.grad.item() != 0


def test_config_refuses_an_unknown_encoding():
    from huggingface_hub.errors import StrictDataclassClassValidationError

    with pytest.raises(StrictDataclassClassValidationError, match="position_encoding 'nope' is not one of"):
        config("nope")
