import { describe, expect, it } from 'vitest';
import { dubKit } from './dub/dub.testkit.js';
import { SHORTENERS } from './index.js';
import { kuttKit } from './kutt/kutt.testkit.js';
import { describeShortenerContract, type ShortenerKit } from './shortener.contract.js';
import { shortioKit } from './shortio/shortio.testkit.js';

// Every outside shortener runs the same contract against its simulator (issue 32).
const kits: Record<keyof typeof SHORTENERS, ShortenerKit> = { dub: dubKit, shortio: shortioKit, kutt: kuttKit };

describe('outside shorteners', () => {
  it('each provider in SHORTENERS has a kit, and each kit tests that provider', () => {
    expect(Object.keys(kits).sort()).toEqual(Object.keys(SHORTENERS).sort());
    for (const [id, kit] of Object.entries(kits)) {
      expect(kit.shortener).toBe(SHORTENERS[id as keyof typeof SHORTENERS]);
      expect(kit.shortener.provider).toBe(id);
    }
  });
});

for (const kit of Object.values(kits)) describeShortenerContract(kit);
