# ckptbench container image: one stripped binary, its runtime libraries, a
# non-root user. The build stage runs the scripts the README and CI run
# (scripts/install-deps.sh, scripts/build.sh), for the binary alone: the
# tests and benchmarks are built and run by CI (scripts/test.sh), not here.
# Build: docker build -t ckptbench .     (BuildKit: Docker 23 and later)
#        podman build -t ckptbench .
# Multi-stage, so only the runtime stage below becomes the image.
FROM debian:12 AS build
WORKDIR /src
# --build: the compilers and libraries only. Before the sources, so that a
# source change reuses this layer.
COPY scripts/install-deps.sh scripts/
RUN bash scripts/install-deps.sh --build
# The context holds only what the binary is built from (.dockerignore): an
# edit to the docs, manifests, tests or benchmarks rebuilds nothing.
COPY . .
# ccache, two ways that never meet. BuildKit (and podman) keep its files in
# a cache mount at /var/cache/ccache from one build to the next. A build
# can instead bind a directory of its own and name it, e.g. the host's:
#   podman build -v ~/.cache/ccache:/ccache --build-arg CCACHE_DIR=/ccache .
# (the container tests do: the host's build warms the image's; build.sh
# sets CCACHE_BASEDIR, so the paths match).
ARG CCACHE_DIR=/var/cache/ccache
RUN --mount=type=cache,target=/var/cache/ccache,id=ckptbench-ccache \
    bash scripts/build.sh --main \
 && strip --strip-all -o /ckptbench build/ckptbench

FROM debian:12-slim
# The shared libraries ckptbench links (ldd build/ckptbench), and CA
# certificates for HTTPS to S3 and GCS.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      ca-certificates libgrpc++1.51 libprotobuf32 libcurl4 libssl3 \
      libyaml-cpp0.7 libabsl20220623 libisal2 libxxhash0 \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --uid 10001 --user-group --create-home --shell /usr/sbin/nologin ckpt \
 && mkdir -p /data /results && chown ckpt:ckpt /data /results
COPY --from=build /ckptbench /usr/local/bin/ckptbench
COPY --from=build /src/conf /etc/ckptbench/conf
USER 10001:10001
WORKDIR /results
# Coordinator control port (gRPC; also the health service).
EXPOSE 50051
ENTRYPOINT ["/usr/local/bin/ckptbench"]
CMD ["help"]
