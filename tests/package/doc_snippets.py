#!/usr/bin/env python3
"""doc_snippets.py — every C code block of the README and docs/ compiles as written.

A block (```c) with its own #include is a translation unit as written; any other block is a
fragment of a host program, compiled as the body of a function whose parameters are the names the
documentation takes as given (the OpenCL objects, a context, filters, images). Warnings are
errors, the header is the repository's. (The Python blocks run in python/tests/test_docs.py.)

Usage: doc_snippets.py REPOSITORY
Exit status 0 when every block compiled, 1 naming the file and line of the first that did not.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

# The names that C fragments use without declaring them, as parameters of the enclosing function.
C_GIVEN = """cl_context cl, cl_device_id device, cl_command_queue queue, cls_context *context,
             cls_filter *filter, cls_filter *blur, cls_filter *dx, cls_filter *dy, cls_spec spec,
             const float *gauss_normalized, size_t W, size_t H, cl_mem input, cl_mem blurred,
             cl_mem gx, cl_mem gy, cl_kernel magnitude_kernel, size_t pixels, cl_event done,
             size_t bytes, cls_image_desc desc"""
C_FLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter", "-Wno-unused-variable",
           "-Wno-unused-but-set-variable", "-Wno-unused-but-set-parameter", "-Wno-unused-function"]


def blocks(path, language):
    """(line, text) of every ```language block in the file at path."""
    found, inside, start, lines = [], False, 0, []
    with open(path, encoding="utf-8") as text:
        for number, line in enumerate(text, 1):
            if not inside and line.rstrip("\n") == "```" + language:
                inside, start, lines = True, number + 1, []
            elif inside and line.rstrip("\n") == "```":
                found.append((start, "".join(lines)))
                inside = False
            elif inside:
                lines.append(line)
    return found


def c_unit(code, index):
    """The translation unit of one C block."""
    if re.search(r"^\s*#include", code, re.M):
        return code
    return (f"#include <clstencil.h>\n#include <math.h>\n#include <stdio.h>\n\n"
            f"void snippet_{index}({C_GIVEN})\n{{\n    {{\n{code}    }}\n}}\n")


def check_c(repository):
    """Compiles every C block; 0, or 1 after naming the first that failed."""
    documents = [os.path.join(repository, "README.md")] + sorted(glob.glob(os.path.join(repository, "docs", "*.md")))
    include = os.path.join(repository, "include")
    count = 0
    with tempfile.TemporaryDirectory() as work:
        for document in documents:
            for line, code in blocks(document, "c"):
                count += 1
                source = os.path.join(work, f"snippet{count}.c")
                with open(source, "w", encoding="utf-8") as out:
                    out.write(c_unit(code, count))
                result = subprocess.run(["cc", *C_FLAGS, "-I", include, "-c", source, "-o", source + ".o"],
                                        capture_output=True, text=True)
                if result.returncode != 0:
                    print(f"{document}:{line}: the C block does not compile:\n{result.stderr}")
                    return 1
    print(f"{count} C blocks compile")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(check_c(sys.argv[1]))
