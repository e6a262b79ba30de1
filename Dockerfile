# ckptbench container image: one binary, its runtime libraries, a non-root
# user. The build stage runs the same scripts as the README and CI
# (scripts/install-deps.sh, scripts/build.sh) and the unit tests, which need
# no privileges. Build: docker build -t ckptbench .
# Multi-stage, so only the runtime stage below becomes the image.
FROM debian:12 AS build
WORKDIR /src
# --build: the compilers, libraries and unit-test frameworks only (no test
# servers, browsers or cloud CLIs). Before the sources, so that a source
# change reuses this layer.
COPY scripts/install-deps.sh scripts/
RUN bash scripts/install-deps.sh --build
COPY . .
# ccache keeps its files in /ccache: empty in a plain build; a cache mounted
# there (podman build -v ~/.cache/ccache:/ccache) makes rebuilds fast.
# build.sh sets CCACHE_BASEDIR, so a host build's cache serves this one.
ENV CCACHE_DIR=/ccache
RUN bash scripts/build.sh build
RUN cd build && ctest -L unit --output-on-failure -j "$(nproc)"

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
COPY --from=build /src/build/ckptbench /usr/local/bin/ckptbench
COPY --from=build /src/conf /etc/ckptbench/conf
USER 10001:10001
WORKDIR /results
# Coordinator control port (gRPC; also the health service).
EXPOSE 50051
ENTRYPOINT ["/usr/local/bin/ckptbench"]
CMD ["help"]
