import { Module } from '@nestjs/common';
import { BridgeOverlayProvider, TranscriptScanService } from 'nest-turn-status';
import { EchoAgent, HostAgent } from './host-agent.js';
import { HostBridge } from './host-bridge.js';
import { HostRuntime } from './host-runtime.js';
import { HostTranscriptScan } from './host-transcript-scan.js';

/**
 * The host's runtime and its two ports. The ports inject `HostRuntime`, so
 * `TurnsModule` gets them by importing this module (`imports: [HostRuntimeModule]`):
 * `bridgeOverlay: HostBridge` alone could not resolve the runtime.
 */
@Module({
  providers: [
    { provide: HostAgent, useClass: EchoAgent },
    HostRuntime,
    { provide: BridgeOverlayProvider, useClass: HostBridge },
    { provide: TranscriptScanService, useClass: HostTranscriptScan },
  ],
  exports: [HostRuntime, BridgeOverlayProvider, TranscriptScanService],
})
export class HostRuntimeModule {}
