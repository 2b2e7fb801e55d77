"""The package list for pyproject.toml's folder mapping: every package under
runtime/ and migrator/, named as installed (``runtime/engine`` is
``estimator_revival.engine``), and the report templates. Everything else about
the distribution is in pyproject.toml."""

from setuptools import find_packages, setup

FOLDERS = {"runtime": "estimator_revival", "migrator": "estimator_revival.migrator"}


def installed_packages() -> list[str]:
    found = ["estimator_revival.migrator.templates"]
    for folder, package in FOLDERS.items():
        found += [package] + [f"{package}.{name}" for name in find_packages(folder)]
    return found


setup(packages=installed_packages())
