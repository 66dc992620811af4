"""Bundles the repository's service models into the package at build time.

Debian 12's botocore (1.29) predates the training-plan operations, so the clients this package
makes load the emulator's own models (api/ at the repository root, botocore layout) first. They
are copied into the package when it is built instead of being committed twice; the copy is
refreshed on every build so it never lags behind api/.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
REPOSITORY_MODELS = HERE.parent.parent / "api"
BUNDLED_MODELS = HERE / "src" / "sagemaker_emulator" / "_models"


def bundle_models() -> None:
    if REPOSITORY_MODELS.is_dir():
        shutil.rmtree(BUNDLED_MODELS, ignore_errors=True)
        shutil.copytree(REPOSITORY_MODELS, BUNDLED_MODELS)
    elif not BUNDLED_MODELS.is_dir():
        # Neither a repository checkout nor an sdist that carries the copy: a package built now
        # would silently fail with older botocore, so refuse.
        raise SystemExit(f"sagemaker-emulator: no service models at {REPOSITORY_MODELS}; "
                         "build from a checkout of the sagemaker-emulator repository")


class BuildPyWithModels(build_py):
    def run(self) -> None:
        bundle_models()
        super().run()


class SdistWithModels(sdist):
    def run(self) -> None:
        bundle_models()
        super().run()


setup(cmdclass={"build_py": BuildPyWithModels, "sdist": SdistWithModels})
