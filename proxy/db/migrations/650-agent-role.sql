-- The agent role (contract/roles.ts): the users table's CHECK lists exactly the roles of
-- contract/roles.ts, in their order. A further role is a migration like this one; the test in
-- proxy/access/roles-check.test.ts fails, on both engines, while the two lists differ.
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('viewer', 'agent', 'admin'));
