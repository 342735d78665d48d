# syntax=docker/dockerfile:1
# payport: a static binary on a distroless base, run as a non-root user.
#   docker build -t payport --build-arg VERSION=$(git describe --tags --always) .
#   docker run -p 8080:8080 -v payport-data:/data payport
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/payport ./cmd/payport \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/payport /usr/local/bin/payport
COPY --from=build --chown=65532:65532 /out/data /data
# SQLite by default, in a volume the non-root user owns; set
# PAYPORT_DATABASE_URL=postgres://… and PAYPORT_SECRET_KEY for PostgreSQL.
ENV PAYPORT_ADDR=0.0.0.0:8080 \
    PAYPORT_DATABASE_URL=sqlite:/data/payport.db \
    PAYPORT_LOG_FORMAT=json
VOLUME /data
EXPOSE 8080
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/payport"]
CMD ["serve"]
