"""Finding and loading models: folders, files, the environment variable, the bundled default,
bad files with clear errors naming them, and execution-provider selection without a GPU."""

import json
import warnings
from pathlib import Path

import onnxruntime as ort
import pytest
import toy_models

import picohead_runtime.model as model_mod
from picohead_runtime import Classifier, ModelError
from picohead_runtime.model import (
    CPU_EP,
    CUDA_EP,
    ENV_MODEL,
    bundled_models,
    resolve_model_path,
    select_providers,
)


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv(ENV_MODEL, raising=False)


# -- where the model comes from ----------------------------------------------------------------------
def test_folder_with_plain_tier_names(model_dir, tmp_path):
    for t in ("tiny", "small"):
        toy_models.copy_file(model_dir / f"toy-{t}-fp32.onnx", tmp_path / f"{t}.onnx")
    assert Classifier(tmp_path).model_path == str(tmp_path / "small.onnx")
    assert Classifier(tmp_path, tier="tiny").tier == "tiny"


def test_exporter_names_prefer_int8_on_cpu(tmp_path):
    for name in ("toy-tiny-fp32.onnx", "toy-tiny-int8.onnx", "toy-tiny-fp16.onnx"):
        (tmp_path / name).write_bytes(b"")
    assert resolve_model_path(tmp_path, "tiny").name == "toy-tiny-int8.onnx"


def test_cuda_prefers_cuda_files(tmp_path, monkeypatch):
    for name in ("tiny.onnx", "tiny.cuda.onnx"):
        (tmp_path / name).write_bytes(b"")
    assert resolve_model_path(tmp_path, "tiny", "cpu").name == "tiny.onnx"
    assert resolve_model_path(tmp_path, "tiny", "cuda").name == "tiny.cuda.onnx"
    monkeypatch.setattr(ort, "get_available_providers", lambda: [CPU_EP])
    assert resolve_model_path(tmp_path, "tiny", "auto").name == "tiny.onnx"


def test_missing_tier_lists_what_the_folder_has(model_dir):
    with pytest.raises(ModelError, match=r"no model for tier 'pro'.*toy-small-fp32.onnx"):
        Classifier(model_dir, tier="pro")


def test_file_path_and_tier_mismatch(tiny_path):
    assert Classifier(tiny_path).tier == "tiny"
    with pytest.raises(ModelError, match="holds tier 'tiny', not the requested 'small'"):
        Classifier(tiny_path, tier="small")


def test_missing_path_is_named(tmp_path):
    with pytest.raises(ModelError, match=str(tmp_path / "nope.onnx")):
        Classifier(tmp_path / "nope.onnx")


def test_environment_variable(model_dir, monkeypatch):
    monkeypatch.setenv(ENV_MODEL, str(model_dir))
    assert Classifier(tier="tiny").model_path == str(model_dir / "toy-tiny-fp32.onnx")


def test_no_bundled_model_is_a_clear_error(no_env, monkeypatch, tmp_path):
    monkeypatch.setattr(model_mod.importlib.resources, "files", lambda pkg: tmp_path)
    assert bundled_models() == []
    with pytest.raises(ModelError, match="no bundled model") as e:
        Classifier()
    assert ENV_MODEL in str(e.value) and "--model" in str(e.value)


def test_bundled_model_found_with_importlib_resources(no_env, model_dir, monkeypatch, tmp_path):
    for version in (1, 2):
        folder = tmp_path / "models" / f"toy-v{version}"
        folder.mkdir(parents=True)
        for t in ("tiny", "small"):
            toy_models.copy_file(model_dir / f"toy-{t}-fp32.onnx", folder / f"{t}.onnx")
    (tmp_path / "models" / "toy-v10").mkdir()  # no .onnx inside: ignored
    monkeypatch.setattr(model_mod.importlib.resources, "files", lambda pkg: tmp_path)
    assert bundled_models() == ["toy-v1", "toy-v2"]
    clf = Classifier()
    assert clf.model_name == "toy-v2" and clf.tier == "small"
    assert clf.classify_bytes(b"hello").model == "toy-v2"


def test_real_package_has_no_fake_model():
    """Until the content model ships (issue 6), the package must not bundle a stand-in."""
    for name in bundled_models():
        assert not name.startswith("toy"), name


# -- bad files ----------------------------------------------------------------------------------------
def test_corrupt_file(tmp_path):
    p = tmp_path / "corrupt.onnx"
    p.write_bytes(b"\x08\x07garbage" * 100)
    with pytest.raises(ModelError, match="corrupt.onnx: cannot load"):
        Classifier(p)


def test_truncated_file(tiny_path, tmp_path):
    p = tmp_path / "truncated.onnx"
    p.write_bytes(tiny_path.read_bytes()[: tiny_path.stat().st_size // 2])
    with pytest.raises(ModelError, match="truncated.onnx"):
        Classifier(p)


def test_label_mismatch(tiny_path, tmp_path):
    def add_label(doc):
        doc["spec"]["heads"][0]["labels"].append("archive")

    p = toy_models.rewrite_meta(tiny_path, tmp_path / "mismatch.onnx", add_label)
    with pytest.raises(ModelError, match=r"mismatch.onnx: head 'kind' has 4 labels.*gives"):
        Classifier(p)


def test_missing_head_output(tiny_path, tmp_path):
    def rename(doc):
        doc["spec"]["heads"][2]["name"] = "secrets"

    p = toy_models.rewrite_meta(tiny_path, tmp_path / "renamed.onnx", rename)
    with pytest.raises(ModelError, match="renamed.onnx: .*no output 'prob_secrets'"):
        Classifier(p)


def test_not_a_picohead_model(tiny_path, tmp_path):
    p = toy_models.strip_meta(tiny_path, tmp_path / "plain.onnx")
    with pytest.raises(ModelError, match="plain.onnx: not a picohead model"):
        Classifier(p)


def test_future_metadata_version(tiny_path, tmp_path):
    def bump(doc):
        doc["format_version"] = 99

    p = toy_models.rewrite_meta(tiny_path, tmp_path / "future.onnx", bump)
    with pytest.raises(ModelError, match="future.onnx: .*format_version 99"):
        Classifier(p)


def test_thresholds_from_metadata_give_unknown(tiny_path, tmp_path):
    def strict(doc):
        doc["spec"]["heads"][0]["threshold"] = 0.99
        doc["spec"]["heads"][2]["threshold"] = 0.0

    p = toy_models.rewrite_meta(tiny_path, tmp_path / "strict.onnx", strict)
    r = Classifier(p).classify_bytes(b"def f(x):\n    return x\n")
    kind = r.heads["kind"]
    assert kind.label == "unknown" and kind.raw in ("code", "text", "binary")
    assert "below the threshold 0.990" in kind.reason
    assert "lang" not in r.heads
    assert r.heads["risk"].labels == ("email", "api_key")
    d = json.loads(json.dumps(r.asdict()))
    assert d["heads"]["kind"]["label"] == "unknown" and d["heads"]["kind"]["reason"]


# -- devices ------------------------------------------------------------------------------------------
def test_select_providers(caplog):
    assert select_providers("cpu", [CUDA_EP, CPU_EP]) == [CPU_EP]
    assert select_providers("cuda", [CUDA_EP, CPU_EP]) == [CUDA_EP, CPU_EP]
    assert select_providers("auto", [CUDA_EP, CPU_EP]) == [CUDA_EP, CPU_EP]
    with pytest.raises(ModelError, match="onnxruntime-gpu"):
        select_providers("cuda", [CPU_EP])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a logged line, never a Python warning with a source line
        assert select_providers("auto", [CPU_EP]) == [CPU_EP]
    assert "running on the CPU" in caplog.text
    with pytest.raises(ModelError, match="unknown device 'tpu'"):
        select_providers("tpu", [CPU_EP])


@pytest.mark.skipif(CUDA_EP in ort.get_available_providers(), reason="this machine has CUDA")
def test_cuda_without_gpu(tiny_path, caplog):
    with pytest.raises(ModelError, match="device='cuda'"):
        Classifier(tiny_path, device="cuda")
    clf = Classifier(tiny_path, device="auto")
    assert "CPU" in caplog.text
    assert clf.device == "cpu" and clf.batch_size == 32


def test_cuda_provider_listed_but_unusable(tiny_path, monkeypatch, caplog):
    """onnxruntime-gpu installed without a working GPU: the session silently falls back."""
    monkeypatch.setattr(ort, "get_available_providers", lambda: [CUDA_EP, CPU_EP])
    real_session = ort.InferenceSession

    def cpu_only(path, sess_options=None, providers=None):
        assert providers == [CUDA_EP, CPU_EP]
        return real_session(path, sess_options=sess_options, providers=[CPU_EP])

    monkeypatch.setattr(ort, "InferenceSession", cpu_only)
    with pytest.raises(ModelError, match="could not start the CUDA"):
        Classifier(tiny_path, device="cuda")
    clf = Classifier(tiny_path, device="auto")
    assert clf.device == "cpu" and "failed to start" in caplog.text


def test_cuda_session_uses_large_batches(tiny_path, monkeypatch):
    """With a CUDA session the classifier batches 1024 files per call by default."""
    monkeypatch.setattr(ort, "get_available_providers", lambda: [CUDA_EP, CPU_EP])
    real_session = ort.InferenceSession

    class FakeCuda:
        def __init__(self, path, sess_options=None, providers=None):
            self._s = real_session(path, sess_options=sess_options, providers=[CPU_EP])

        def get_providers(self):
            return [CUDA_EP, CPU_EP]

        def __getattr__(self, name):
            return getattr(self._s, name)

    monkeypatch.setattr(ort, "InferenceSession", FakeCuda)
    clf = Classifier(tiny_path, device="cuda")
    assert clf.device == "cuda" and clf.batch_size == 1024
    assert clf.classify_bytes(b"abc").ok


def test_threads_must_be_positive(tiny_path):
    with pytest.raises(ModelError, match="threads"):
        Classifier(tiny_path, threads=0)


def test_paths_in_errors_are_paths(tmp_path):
    with pytest.raises(ModelError) as e:
        Classifier(Path(tmp_path) / "x" / "y.onnx")
    assert str(tmp_path) in str(e.value)


def test_compressed_metadata_loads_like_plain_and_damage_is_named(tiny_path, tmp_path):
    """ModelMeta.to_prop stores the metadata JSON as raw LZMA2 in base85 (a calibrated tiny's
    thresholds take 12 KB of its 64 KB budget as JSON); files written before keep zlib in base64
    or plain JSON. All load to the same answers; a damaged compressed text is a clear ModelError."""
    import base64
    import zlib

    from picohead_runtime.model_meta import ModelMeta

    plain = toy_models.read_meta(tiny_path)
    packed = ModelMeta.from_json(plain).to_prop()
    assert packed.startswith("xz85:") and len(packed) < len(plain)
    assert ModelMeta.from_json(packed) == ModelMeta.from_json(plain)
    older = "zlib:" + base64.b64encode(zlib.compress(plain.encode(), 9)).decode()  # 2026-12-06/07
    assert ModelMeta.from_json(older) == ModelMeta.from_json(plain)
    z = toy_models.write_raw_meta(tiny_path, tmp_path / "z.onnx", packed)
    data = [b"def main():\n    return 1\n", b"%PDF-1.7\n", b"hello world"]
    want = [r.asdict() for r in Classifier(tiny_path).classify_many_bytes(data)]
    assert [r.asdict() for r in Classifier(z).classify_many_bytes(data)] == want
    bad = toy_models.write_raw_meta(tiny_path, tmp_path / "bad.onnx", "zlib:not base64!")
    with pytest.raises(ModelError, match="bad.onnx.*damaged"):
        Classifier(bad)
    bad = toy_models.write_raw_meta(tiny_path, tmp_path / "bad85.onnx", "xz85:not~base85~")
    with pytest.raises(ModelError, match="bad85.onnx.*damaged"):
        Classifier(bad)
    cut = toy_models.write_raw_meta(tiny_path, tmp_path / "cut.onnx", packed[:-40])
    with pytest.raises(ModelError, match="cut.onnx.*cut short"):
        Classifier(cut)


def test_the_lzma_form_is_smaller_than_zlib_on_a_calibrated_tiny() -> None:
    """The bundled tiny (dev-calibrated, stored as ``zlib:``) re-stored by to_prop: the same
    metadata, at least 250 characters shorter (content-v19rc1's calibrated tiny was 333 B over
    its 64 KiB budget with zlib in base64, 45 B under with LZMA2 in base85)."""
    import onnx

    from picohead_runtime.model import default_model_dir
    from picohead_runtime.model_meta import META_KEY, ModelMeta

    stored = {p.key: p.value for p in onnx.load(str(default_model_dir() / "tiny.onnx")).metadata_props}
    old = stored[META_KEY]
    new = ModelMeta.from_json(old).to_prop()
    assert ModelMeta.from_json(new) == ModelMeta.from_json(old)
    assert len(old) - len(new) >= 250
