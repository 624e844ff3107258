# One image for the API, the worker and the one-shot setup jobs; temporal-compose.yml picks the command.
# TypeScript runs through tsx (as in development): no separate build step, no drift between dev and image.
FROM node:22-slim

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

WORKDIR /app

# Dependencies first, so this layer is rebuilt only when the lockfile changes. .npmrc comes with them: npm reads its
# legacy-peer-deps from there, and without it `npm ci` stops on @langchain/community's peer conflict (ERESOLVE).
# --ignore-scripts: nothing in the stack needs an install script (the Temporal core bridge ships its native module),
# and @prisma/engines' would download engines we do not use (the client runs on the pg driver adapter).
# CI builds this layer and the steps below without Docker: scripts/ci/check-image-install.ts (`npm run check:image`).
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

COPY . .
# The Prisma client is generated code (git-ignored), so it is produced in the image from prisma/schema.prisma.
RUN npm run generate
# The workflow bundle, made once from the code in this image, so a worker starts without bundling it again (the same
# webpack build a worker would otherwise run at every start; docs/operations.md).
RUN npm run worker:bundle /app/dist/workflow-bundle.js
# The centre console (docs/console.md): one script and one stylesheet, content-hashed, in console/dist where the API
# serves them from (CONSOLE_DIR's default). esbuild comes with the production install (tsx needs it too).
RUN npm run console:build
ENV WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js

# Run unprivileged; the app writes nothing under /app at run time (tsx caches in /tmp).
USER node
EXPOSE 3000

# `node --import tsx` rather than `npx tsx`: one process, so SIGTERM from `docker stop` reaches the app's own
# graceful shutdown directly.
CMD ["node", "--import", "tsx", "api/server.ts"]
