-- The version of the opt-out rules (contract/desk/opt-out.ts) that the stored desk_opt facts were
-- classified by. A server whose rules are newer classifies again the messages the changes can
-- move, then records its version (proxy/desk/refresh.ts reclassifyOptOuts, run by refreshAllDesk).
-- Version 1: the rules every fact stored so far was classified by.
CREATE TABLE desk_rules (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  opt_version integer NOT NULL
);
INSERT INTO desk_rules (one, opt_version) VALUES (true, 1);
