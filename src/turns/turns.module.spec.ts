import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ClientIdGuard } from '../client-id/client-id.guard.js';
import { SessionClientLookup } from '../client-id/session-client-lookup.js';
import { InMemoryBridgeOverlay } from '../testing/in-memory-bridge-overlay.js';
import { InMemoryTranscriptScan } from '../testing/in-memory-transcript-scan.js';
import { BridgeOverlayProvider } from './bridge-overlay.provider.js';
import { TranscriptScanService } from './transcript-scan.service.js';
import { TurnsModule } from './turns.module.js';

/** A registry of live sessions of its own, as the reference runtime's SessionRegistry is. */
class Registry extends SessionClientLookup {
  hasSession = (sessionId: string) => sessionId === 'registered';
  isClientRegistered = () => false;
}

@Module({
  providers: [
    { provide: BridgeOverlayProvider, useValue: new InMemoryBridgeOverlay().addSession('bridged') },
    { provide: TranscriptScanService, useClass: InMemoryTranscriptScan },
    Registry,
  ],
  exports: [BridgeOverlayProvider, TranscriptScanService, Registry],
})
class HostModule {}

describe('TurnsModule session lookup', () => {
  it('is the bridge by default, and the provider named by sessionLookup when given', async () => {
    const byBridge = await Test.createTestingModule({ imports: [TurnsModule.forRoot({ imports: [HostModule] })] }).compile();
    expect(byBridge.get(SessionClientLookup)).toBe(byBridge.get(BridgeOverlayProvider));

    const byRegistry = await Test.createTestingModule({
      imports: [TurnsModule.forRoot({ imports: [HostModule], sessionLookup: Registry })],
    }).compile();
    const lookup = byRegistry.get(SessionClientLookup);
    expect(lookup).toBe(byRegistry.get(Registry));
    // The guard asks it, not the bridge.
    const guard = byRegistry.get(ClientIdGuard);
    const context = (id: string) => ({ switchToHttp: () => ({ getRequest: () => ({ params: { id }, headers: {} }) }) }) as never;
    expect(guard.canActivate(context('registered'))).toBe(true);
    expect(() => guard.canActivate(context('bridged'))).toThrow(expect.objectContaining({ code: 'session_not_found' }));
  });
});
