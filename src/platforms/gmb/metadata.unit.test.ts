import { describe, expect, it } from 'vitest';
import { GmbSettingsSchema, gmbMetadata } from './metadata.js';

const issues = (r: { error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  r.error?.issues.map((i) => ({ path: i.path, message: i.message }));

describe('gmb metadata', () => {
  it('is the gmb platform: one picture, no video, no comments', () => {
    expect(gmbMetadata.identifier).toBe('gmb');
    expect(gmbMetadata.text.maxLength).toBe(1500);
    expect(gmbMetadata.media.maxItems).toBe(1);
    expect(gmbMetadata.media.video).toBeUndefined();
    expect(gmbMetadata.thread.supported).toBe(false);
    expect(gmbMetadata.oauth?.scopes).toContain('https://www.googleapis.com/auth/business.manage');
    expect(gmbMetadata.rules).not.toBe('');
  });

  it('accepts no settings, an event and an offer', () => {
    expect(GmbSettingsSchema.safeParse({ __type: 'gmb' }).success).toBe(true);
    expect(
      GmbSettingsSchema.safeParse({
        __type: 'gmb',
        topicType: 'EVENT',
        eventTitle: 'Summer sale',
        eventStartDate: '2026-07-01',
        eventEndDate: '2026-07-14',
        eventStartTime: '09:00',
        eventEndTime: '18:00',
        callToActionType: 'LEARN_MORE',
        callToActionUrl: 'https://shop.example.com/sale',
      }).success,
    ).toBe(true);
    expect(
      GmbSettingsSchema.safeParse({
        topicType: 'OFFER',
        offerCouponCode: 'SUMMER10',
        offerRedeemUrl: 'https://shop.example.com/redeem',
        offerTerms: 'One per customer',
        callToActionType: 'CALL',
      }).success,
    ).toBe(true);
  });

  it('an EVENT needs eventTitle', () => {
    expect(issues(GmbSettingsSchema.safeParse({ topicType: 'EVENT' }))).toEqual([
      { path: ['eventTitle'], message: 'Required for an event' },
    ]);
    expect(issues(GmbSettingsSchema.safeParse({ topicType: 'EVENT', eventTitle: '  ' }))?.[0]?.path).toEqual(['eventTitle']);
  });

  it('a link call to action needs a valid callToActionUrl; unknown enums are refused', () => {
    expect(issues(GmbSettingsSchema.safeParse({ callToActionType: 'BOOK' }))).toEqual([
      { path: ['callToActionUrl'], message: 'Required for this call to action' },
    ]);
    expect(issues(GmbSettingsSchema.safeParse({ callToActionType: 'SHOP', callToActionUrl: 'shop' }))).toEqual([
      { path: ['callToActionUrl'], message: 'Must be an http(s) URL' },
    ]);
    expect(issues(GmbSettingsSchema.safeParse({ callToActionType: 'VISIT' }))?.[0]?.path).toEqual(['callToActionType']);
    expect(issues(GmbSettingsSchema.safeParse({ topicType: 'ALERT' }))?.[0]?.path).toEqual(['topicType']);
    expect(issues(GmbSettingsSchema.safeParse({ offerRedeemUrl: 'nope' }))?.[0]?.path).toEqual(['offerRedeemUrl']);
  });
});
