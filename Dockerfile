# The clusterset reconciler image: this package compiled to JavaScript (`npm run build:js`), run by
# Node as user 65532. The leader bundle's Deployment runs it; its default tag is the package
# version (DEFAULT_RECONCILER_IMAGE in lib/names.ts), so build and push it with each release:
#
#   docker build -t ghcr.io/clusterset/clusterset:"$(node -p "require('./package.json').version")" .
#
# The test command builds this file with podman (test/image/build.sh), on base images made offline
# under the same names (test/image/base.sh), and runs the image (test/e2e/image.test.ts).
# Node 20.19 or newer is needed: dist/ loads @kubernetes/client-node, an ES module, with require().

# Compile: all dependencies (TypeScript is a dev dependency), then lib/ and generated/ into dist/.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: the package's `prepare` (build:js) needs the sources, copied below.
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build-js.ts scripts/
COPY crds crds
COPY generated generated
COPY lib lib
RUN npm run build:js

# Production dependencies only.
FROM node:20-bookworm-slim AS deps
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

# Runtime: Node on distroless (glibc and a few libraries, no shell, no package manager), the
# package files, production node_modules and the compiled output; nothing else.
FROM gcr.io/distroless/nodejs20-debian12:nonroot
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY --from=deps /src/node_modules node_modules
COPY --from=build /src/dist dist
# The Deployment runs it as 65532:65532 too (runAsNonRoot); the files stay root-owned and read-only.
USER 65532:65532
ENTRYPOINT ["/nodejs/bin/node", "dist/lib/cli/main.js"]
CMD ["reconcile"]
