"""Model configs from the Hugging Face Hub: ``--model ORG/NAME`` reads that repository's
``config.json`` through ``huggingface_hub`` (the optional extra ``quizcoll[hub]``).

The download goes through the Hub's own cache, so a config read once is read offline
after that, and the Hub's settings apply as they do for every other Hugging Face tool:
``HF_HUB_CACHE`` / ``HF_HOME`` (where the cache is), ``HF_HUB_OFFLINE=1`` (cache only,
never the network), ``HF_TOKEN`` (gated models). The file is then parsed by the same
bounded reader as ``--config PATH``. ``huggingface_hub`` is imported only here, only when
a repository id is asked for; names without ``/`` stay with the built-in catalog.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from quizcoll.memory.architecture import ModelConfig, load_config
from quizcoll.memory.errors import MemoryInputError

# The Hub's rule for repository ids: namespace/name, letters, digits, "-", "_", ".", at most
# 96 characters, no "--" or ".." and no leading or trailing "-" or ".".
_REPO_ID = re.compile(r"^[A-Za-z0-9](?:[\w.-]*[A-Za-z0-9])?/[A-Za-z0-9_](?:[\w.-]*[\w])?$")
MAX_CONFIG_BYTES = 1024 * 1024  # a config.json is a few KiB; anything this large is not one
INSTALL = "pip install 'quizcoll[hub]'"
PROBE_TIMEOUT_S = 10  # the one request that tells whether the Hub answers at all


def is_repo_id(name: str) -> bool:
    """``meta-llama/Meta-Llama-3-8B`` yes; ``llama-3-8b`` (a catalog name) or a path, no."""
    text = name.strip()
    return len(text) <= 96 and bool(_REPO_ID.match(text)) and "--" not in text and ".." not in text


def config_path(repo_id: str, revision: str | None = None) -> Path:
    """The local path of ``repo_id``'s config.json, downloaded into the Hub cache if needed."""
    try:
        import huggingface_hub
        from huggingface_hub import constants, errors
    except ImportError:
        raise MemoryInputError(
            f"{repo_id}: reading a model from the Hugging Face Hub needs huggingface_hub: {INSTALL}"
        ) from None
    # Offline, the download retries five times with backoff (about 23 s) and logs each try;
    # one HEAD without retries tells first whether the Hub answers at all, and the Hub's log
    # lines are kept off the terminal: a failure is reported below in one line.
    local_only = bool(constants.HF_HUB_OFFLINE) or not _hub_answers(repo_id, revision)
    try:
        with _quiet_hub_log():
            return Path(
                huggingface_hub.hf_hub_download(
                    repo_id, "config.json", revision=revision, local_files_only=local_only
                )
            )
    except errors.LocalEntryNotFoundError:
        if constants.HF_HUB_OFFLINE:
            raise MemoryInputError(
                f"{repo_id}: config.json is not in the Hugging Face cache and HF_HUB_OFFLINE is set"
            ) from None
        raise MemoryInputError(
            f"{repo_id}: could not reach the Hugging Face Hub and config.json is not in its cache"
        ) from None
    except errors.GatedRepoError:
        raise MemoryInputError(
            f"{repo_id}: a gated model; accept its terms on the Hub and set HF_TOKEN"
        ) from None
    except errors.RepositoryNotFoundError:
        raise MemoryInputError(
            f"{repo_id}: no such model on the Hugging Face Hub (or it is private: set HF_TOKEN)"
        ) from None
    except errors.RevisionNotFoundError:
        raise MemoryInputError(f"{repo_id}: no revision {revision!r}") from None
    except errors.EntryNotFoundError:
        raise MemoryInputError(f"{repo_id}: the repository has no config.json") from None
    except (errors.HfHubHTTPError, OSError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise MemoryInputError(
            f"{repo_id}: cannot read config.json from the Hub: {first}"
        ) from None


def _hub_answers(repo_id: str, revision: str | None) -> bool:
    """Whether the Hub answers one HEAD request for ``repo_id``'s config.json (no retries)."""
    import huggingface_hub
    from huggingface_hub import errors

    url = huggingface_hub.hf_hub_url(repo_id, "config.json", revision=revision)
    try:
        with _quiet_hub_log():
            huggingface_hub.get_hf_file_metadata(url, timeout=PROBE_TIMEOUT_S)
    except errors.HfHubHTTPError:
        return True  # an answer (401, 404, ...): the download says which, in its own words
    except Exception:  # no DNS, refused, timed out, TLS: the Hub is not reachable
        return False
    return True


@contextmanager
def _quiet_hub_log() -> Iterator[None]:
    """huggingface_hub's warnings (retries, "thrown while requesting") off the terminal."""
    log = logging.getLogger("huggingface_hub")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def load_hub_config(repo_id: str, revision: str | None = None) -> ModelConfig:
    """The parsed config of the Hub model ``repo_id``, named after the repository."""
    repo_id = repo_id.strip()
    if not is_repo_id(repo_id):
        raise MemoryInputError(f"{repo_id!r} is not a Hugging Face repository id (ORG/NAME)")
    path = config_path(repo_id, revision)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise MemoryInputError(f"{repo_id}: cannot read the cached config.json: {exc}") from None
    if size > MAX_CONFIG_BYTES:
        raise MemoryInputError(
            f"{repo_id}: config.json is {size:,} bytes; a model config is at most {MAX_CONFIG_BYTES:,}"
        )
    try:
        config = load_config(path)
    except MemoryInputError as exc:
        # Name the repository, not the cache path, in the one-line message.
        raise MemoryInputError(str(exc).replace(str(path), f"{repo_id}/config.json")) from None
    return dataclasses.replace(config, name=repo_id)
