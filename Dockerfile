# tpsmon's container image: the static binary on a minimal base, run as a non-root user,
# with tpsmon as the entrypoint (the image's arguments are tpsmon's).
#
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) -t REGISTRY/tpsmon:TAG .
#   docker push REGISTRY/tpsmon:TAG
#   docker run --rm -it REGISTRY/tpsmon:TAG bench --url http://host.docker.internal:8000/v1
#
# The binary is built by .ci/build, the script the release archives and CI use.

# GO_VERSION is go.mod's go version (a test keeps them equal).
ARG GO_VERSION=1.26.0

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# VERSION is what `tpsmon version` prints; TARGETOS and TARGETARCH are set by
# `docker buildx build --platform linux/amd64,linux/arm64` (the build cross-compiles).
ARG VERSION=dev
ARG TARGETOS
ARG TARGETARCH
RUN GOOS=$TARGETOS GOARCH=$TARGETARCH .ci/build /out/tpsmon "$VERSION"

# distroless/static: CA certificates (for https endpoints), time zones and a nonroot
# user, no shell and no package manager.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/tpsmon /usr/local/bin/tpsmon
# 65532 is distroless's nonroot user, the user deploy/k8s runs as.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/tpsmon"]
