import { forwardRef, Global, Module, type DynamicModule } from '@nestjs/common';
import { importsModule } from './imported-module-graph.js';

@Module({})
class Target {
  static forRoot(): DynamicModule {
    return { module: Target };
  }
}

@Module({})
class Leaf {}

@Module({ imports: [Leaf] })
class Middle {}

describe('importsModule', () => {
  it('finds the module as a class, a dynamic module, a promise of one, or behind a forwardRef', async () => {
    expect(await importsModule([Target], Target)).toBe(true);
    expect(await importsModule([Target.forRoot()], Target)).toBe(true);
    expect(await importsModule([Promise.resolve(Target.forRoot())], Target)).toBe(true);
    expect(await importsModule([forwardRef(() => Target)], Target)).toBe(true);
  });

  it("walks the modules' own imports, static and dynamic, however deep", async () => {
    @Module({ imports: [Middle, Target.forRoot()] })
    class Host {}
    @Module({ imports: [Leaf, Host] })
    class App {}
    const wrapper: DynamicModule = { module: Leaf, imports: [{ module: Middle, imports: [App] }] };
    expect(await importsModule([App], Target)).toBe(true);
    expect(await importsModule([wrapper], Target)).toBe(true);
  });

  it('answers false when no module of the graph is it, cycles included', async () => {
    @Global()
    @Module({ imports: [forwardRef(() => B)] })
    class A {}
    @Module({ imports: [A, Middle] })
    class B {}
    expect(await importsModule([B, Leaf], Target)).toBe(false);
    expect(await importsModule(undefined, Target)).toBe(false);
    expect(await importsModule([], Target)).toBe(false);
  });
});
