# The dbharness image: the static binary and nothing else, for load
# generators on Kubernetes (`dbharness k8s job`, docs/kubernetes.md).
#
#   docker build -t REGISTRY/dbharness:TAG --build-arg VERSION=TAG .
#
# The build stage uses the Go release that go.mod names; the binary is
# static (CGO_ENABLED=0: the SQLite driver is pure Go), so the image needs
# no libc, and runs as a user without privileges.
FROM golang:1.26.8-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/dbharness/dbharness/internal/cli.Version=${VERSION}" -o /out/dbharness ./cmd/dbharness

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/dbharness /dbharness
ENTRYPOINT ["/dbharness"]
