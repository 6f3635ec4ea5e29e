# The wheel holds a prebuilt extension (hirope/_hirope*.so, built by CMake): a platform wheel,
# not a pure-Python one, though setuptools compiles nothing here.
from setuptools import setup
from setuptools.dist import Distribution


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(distclass=BinaryDistribution)
