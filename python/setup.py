# The wheel holds a prebuilt extension (hirope/_hirope*.so, built by CMake): a platform wheel,
# not a pure-Python one, though setuptools compiles nothing here.
import atexit
import os
import shutil
import tempfile

from setuptools import setup
from setuptools.dist import Distribution


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


# pip builds in the source folder: setuptools' scratch (build/, hirope.egg-info/) goes to a
# temporary folder, removed when the build step ends, so that the folder stays as it was.
scratch = tempfile.mkdtemp(prefix="hirope-setup-")
atexit.register(shutil.rmtree, scratch, ignore_errors=True)

setup(
    distclass=BinaryDistribution,
    options={
        "build": {"build_base": os.path.join(scratch, "build")},
        "egg_info": {"egg_base": scratch},
    },
)
