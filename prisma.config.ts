import { defineConfig } from 'prisma/config'

// Prisma 7 reads connection settings from here, not from schema.prisma. DATABASE_URL stays optional so that
// `prisma generate` (which never connects) works on a machine without a database.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: {
    path: 'prisma/migrations',
  },
  datasource: {
    url: process.env.DATABASE_URL,
  },
})
