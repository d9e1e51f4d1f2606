"""A pytest plugin that runs scipy's own ndimage tests with clstencil.ndimage in scipy.ndimage's
place: every function clstencil.ndimage has replaces scipy's (calls it does not serve go back to
scipy through its fallback), and the counts of calls each answered are written, at the end, to
the JSON file named by CLS_SCIPY_SUITE_COUNTS. CLS_SCIPY_SUITE_SHARD ("K/N") keeps every Nth test
from the Kth, so that the suite runs as N shorter tests."""
import json
import os

# As conftest.py: the linker PoCL starts for every kernel need not run under a preloaded sanitizer.
os.environ.pop("LD_PRELOAD", None)

import clstencil.ndimage as drop_in
from scipy import ndimage

drop_in.fallback_to_scipy = True
for name in drop_in.__all__:
    if hasattr(ndimage, name) and callable(getattr(drop_in, name)):
        setattr(ndimage, name, getattr(drop_in, name))


def pytest_collection_modifyitems(config, items):
    index, count = (int(part) for part in os.environ.get("CLS_SCIPY_SUITE_SHARD", "0/1").split("/"))
    config.hook.pytest_deselected(items=[item for place, item in enumerate(items) if place % count != index])
    items[:] = items[index::count]


def pytest_sessionfinish(session, exitstatus):
    with open(os.environ["CLS_SCIPY_SUITE_COUNTS"], "w") as file:
        json.dump({"counts": dict(drop_in.counts), "fallback_reasons": dict(drop_in.fallback_reasons)}, file,
                  indent=1)
