import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit } from '../sandbox/kit.js';
import { numericId, tokenOf } from '../sandbox/ids.js';
import { GMB_SIM_ORIGINS, startGmbSimulator } from './gmb.simulator.js';

/**
 * Google Business Profile in the sandbox: the Google OAuth client, a Google user per account
 * managing one business account with one location named after it. Google pulls each photo from
 * the service's public URL (`mediaOrigins`).
 */
export default defineSandboxKit({
  origins: [...GMB_SIM_ORIGINS],
  app: SANDBOX_APPS.gmb,
  example: { media: 'image' },
  async start(ctx) {
    const sim = await startGmbSimulator({ mediaOrigins: ctx.mediaOrigins });
    sim.addApp(SANDBOX_APPS.gmb);
    return sim;
  },
  addAccount(sim, account) {
    const sub = numericId(account.key, 21, 'google');
    const accountName = `accounts/${numericId(account.key, 21, 'gmb-account')}`;
    const locationId = numericId(account.key, 19, 'gmb-location');
    sim.addUser({ sub, name: account.name, email: `${account.handle}@sandbox.invalid` });
    if (!sim.accounts.some((a) => a.name === accountName)) sim.addAccount({ name: accountName, accountName: account.name, type: 'PERSONAL', members: [sub] });
    if (!sim.locations.has(locationId)) sim.addLocation({ id: locationId, accounts: [accountName], title: account.name, placeId: `ChIJ${tokenOf(account.key, 23, 'gmb-place')}` });
    return { kind: 'oauth', approve: () => sim.approveAs(sub) };
  },
  feed(sim, internalId) {
    const locationId = internalId.replace(/^locations\//, '');
    return sim.posts
      .filter((p) => p.locationId === locationId)
      .map((p) => ({
        id: p.name,
        text: p.summary,
        createdAt: p.createTime,
        media: p.media.map((m) => ({ kind: m.mediaFormat === 'VIDEO' ? ('video' as const) : ('image' as const), sha256: m.sha256, mimeType: m.contentType })),
      }));
  },
  fault(sim, fault) {
    switch (fault) {
      case 'revoked':
        // Google answers a revoked grant's access token as an expired one: the refresh is refused too.
        sim.inject({ path: /^\/token/, status: 400, body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' } });
        return sim.injectKind('revoked');
      case 'rate_limited':
        return sim.injectKind('rate_limited');
      case 'media_refused':
      case 'duplicate':
        return sim.injectKind('rejected');
    }
  },
});
