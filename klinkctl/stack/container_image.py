"""The image the compose backend's containers run: built from Debian packages, no image registry needed.

Flink, Kafka and our jars are not in it: the containers mount them read-only from this machine at the paths the
local backend uses, so both backends run the very same distribution, jars and commands. The image only brings
what those commands need: Java 17, bash and the tools Flink's scripts call. It is made with `debootstrap
--variant=minbase` and `docker import` (no registry, no Dockerfile), tagged by a hash of what went into it, and
built once per engine; `--base-image` names another image instead (it must have `java` 17 and `bash`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from klinkctl.errors import KlinkError
from klinkctl.progress import Progress
from klinkctl.stack.spec import StackSpec

if TYPE_CHECKING:
    import docker

SUITE = "bookworm"
PACKAGES = ("openjdk-17-jre-headless", "procps")
REPOSITORY = "klinkctl-base"
MADE_BY_LABEL = "io.klink.made-by"


def built_tag(spec: StackSpec) -> str:
    """The tag of the image debootstrap makes for this suite, package list and mirror."""
    recipe = "\n".join([SUITE, spec.debian_mirror, *PACKAGES])
    return f"{REPOSITORY}:{SUITE}-{hashlib.sha1(recipe.encode()).hexdigest()[:10]}"


def ensure_image(client: docker.DockerClient, spec: StackSpec, progress: Progress) -> str:
    """The image to run: --base-image if given (present or pulled), else ours (built now if the engine lacks it)."""
    from docker.errors import DockerException, ImageNotFound

    wanted = spec.base_image or built_tag(spec)
    try:
        client.images.get(wanted)
        return wanted
    except ImageNotFound:
        pass
    if spec.base_image:
        progress(f"pulling {spec.base_image}")
        try:
            client.images.pull(spec.base_image)
        except DockerException as error:
            raise KlinkError(f"--base-image {spec.base_image}: not on the engine and not pullable "
                             f"({first_line(error)}); name a local image or leave it out to build one") from None
        return wanted
    build_image(client, spec, wanted, progress)
    return wanted


def build_image(client: docker.DockerClient, spec: StackSpec, tag: str, progress: Progress) -> None:
    """debootstrap a minimal Debian with PACKAGES into a temporary directory and import it as `tag`.

    The import is the last step and is atomic: a build that fails half-way leaves no image, only its log."""
    _require_builder()
    log = spec.state_dir / "logs" / "image-build.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    progress(f"building image {tag} from Debian packages (debootstrap {SUITE}, about a minute; log {log})")
    with tempfile.TemporaryDirectory(prefix="klinkctl-image-") as scratch:
        root = Path(scratch) / "root"
        _run(["debootstrap", "--variant=minbase", f"--include={','.join(PACKAGES)}", SUITE, str(root),
              spec.debian_mirror], log, "debootstrap")
        _import(client, root, tag, log)


def _require_builder() -> None:
    if os.geteuid() != 0:
        raise KlinkError("building the compose image needs root (debootstrap); run as root once, "
                         "or name an image with --base-image")
    if shutil.which("debootstrap") is None:
        raise KlinkError("building the compose image needs debootstrap (apt-get install debootstrap), "
                         "or name an image with --base-image")


def _run(argv: list[str], log: Path, what: str) -> None:
    with log.open("a") as out:
        out.write(f"$ {' '.join(argv)}\n")
        out.flush()
        code = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, check=False).returncode
    if code != 0:
        raise KlinkError(f"{what} failed (exit {code}): {_last_line(log)}; nothing was imported (see {log})")


def _import(client: docker.DockerClient, root: Path, tag: str, log: Path) -> None:
    from docker.errors import DockerException

    repository, _, version = tag.partition(":")
    tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
    try:
        answer = client.api.import_image_from_stream(tar.stdout, repository=repository, tag=version,
                                                     changes=[f"LABEL {MADE_BY_LABEL}=klinkctl"])
        if '"error"' in str(answer):
            raise KlinkError(f"docker import of {tag} failed: {str(answer)[:200]} (see {log})")
    except DockerException as error:
        raise KlinkError(f"docker import of {tag} failed: {first_line(error)} (see {log})") from None
    finally:
        tar.stdout.close()
        tar.wait()


def first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0][:200]


def _last_line(path: Path) -> str:
    lines = [line.strip() for line in path.read_text(errors="replace").splitlines() if line.strip()]
    return lines[-1][:200] if lines else "no output"
